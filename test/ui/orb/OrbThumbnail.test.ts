// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import OrbThumbnail from '../../../src/ui/orb/OrbThumbnail.vue';
import { ORB_SHAPES } from '../../../common/orb/orbShapes';
import { ORB } from '../../../src/core/orb/orbTuning';
import { englishSay } from '../../helpers/pageWords';

describe('a shape’s thumbnail', () => {
  it('draws each of the five shapes still, as an image named for people who cannot see it', () => {
    const drawings = ORB_SHAPES.map((shape) => {
      const wrapper = mount(OrbThumbnail, { props: { shape: shape.id } });
      const svg = wrapper.get('svg');
      expect(svg.attributes('role')).toBe('img');
      expect(svg.attributes('aria-label')).toBe(englishSay(shape.name));
      const paths = wrapper.findAll('path').map((path) => path.attributes('d') ?? '');
      expect(paths).toHaveLength(ORB.strands);
      for (const d of paths) expect(d).toMatch(/^M-?\d/);
      expect(paths.every((d) => d.endsWith('Z'))).toBe(shape.id !== 'tide');
      expect(svg.findAll('path').every((path) => path.attributes('stroke') === 'currentColor')).toBe(true);
      return paths.join();
    });
    expect(new Set(drawings).size).toBe(ORB_SHAPES.length);
  });

  it('redraws when the shape changes', async () => {
    const wrapper = mount(OrbThumbnail, { props: { shape: 'halo' } });
    const before = wrapper.get('path').attributes('d');
    await wrapper.setProps({ shape: 'lattice' });
    expect(wrapper.get('path').attributes('d')).not.toBe(before);
    expect(wrapper.get('svg').attributes('aria-label')).toBe('Lattice');
  });
});
