// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import YourData from '../../../src/ui/people/YourData.vue';
import { fakePeoplePort } from './fakePeoplePort';

const bot = { slug: 'demo', name: 'Sage' };

describe('Take it with you, and Forget me', () => {
  it('downloads everything with one button', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(YourData, { props: { port, bot } });
    await wrapper.get('[data-testid="download-everything"]').trigger('click');
    await flushPromises();
    expect(port.download).toHaveBeenCalledOnce();
  });

  it('forgets only when asked twice: the button, then the bot’s name typed', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(YourData, { props: { port, bot }, attachTo: document.body });
    await wrapper.get('[data-testid="forget-me-start"]').trigger('click');
    expect(port.forget).not.toHaveBeenCalled();
    expect(wrapper.get('label[for="forget-typed"]').text()).toBe('To be sure, type Sage');
    const forGood = wrapper.get('[data-testid="forget-me-for-good"]');
    expect(forGood.attributes('disabled')).toBeDefined();
    await wrapper.get('[data-testid="forget-typed"]').setValue('Sag');
    expect(forGood.attributes('disabled')).toBeDefined();
    await wrapper.get('[data-testid="forget-typed"]').setValue('sage ');
    expect(forGood.attributes('disabled')).toBeUndefined();
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(port.forget).toHaveBeenCalledWith('sage', 'demo');
    wrapper.unmount();
  });

  it('puts the question away on Never mind', async () => {
    const { port } = fakePeoplePort();
    const wrapper = mount(YourData, { props: { port, bot } });
    await wrapper.get('[data-testid="forget-me-start"]').trigger('click');
    await wrapper.findAll('button').find((b) => b.text() === 'Never mind')?.trigger('click');
    expect(wrapper.find('[data-testid="forget-typed"]').exists()).toBe(false);
    expect(port.forget).not.toHaveBeenCalled();
  });

  it('shows the server’s sentence when it refuses', async () => {
    const { port } = fakePeoplePort();
    port.forget.mockRejectedValueOnce(new Error('Type the bot’s name as it is written to forget everything.'));
    const wrapper = mount(YourData, { props: { port, bot } });
    await wrapper.get('[data-testid="forget-me-start"]').trigger('click');
    await wrapper.get('[data-testid="forget-typed"]').setValue('Sage');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toBe('Type the bot’s name as it is written to forget everything.');
  });
});
