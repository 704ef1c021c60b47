import { describe, expect, it } from 'vitest';
import { ORB_LOOKS, orbLook } from '../../../src/core/orb/orbLook';
import { createOrb, stepOrb } from '../../../src/core/orb/orbModel';
import { orbScene } from '../../../src/core/orb/orbScene';
import { ORB_SHAPES, orbShape, isOrbShapeId, DEFAULT_ORB_SHAPE } from '../../../common/orb/orbShapes';
import { ORB_STATES, orbSentence } from '../../../src/core/orb/orbState';
import type { OrbState } from '../../../src/core/orb/orbState';
import { ORB_SHAPES as BOT_FILE_SHAPES } from '../../../server/bots';
import { englishSay } from '../../helpers/pageWords';

/** WCAG relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) => (c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4)));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
};

/** The ways two states' looks differ with no motion at all. */
function differences(a: OrbState, b: OrbState): string[] {
  const [lookA, lookB] = [orbLook(a), orbLook(b)];
  const found: string[] = [];
  if (lookA.colour !== lookB.colour) found.push('colour');
  if (lookA.dash.join() !== lookB.dash.join()) found.push('pattern');
  if (lookA.lineWidth !== lookB.lineWidth) found.push('weight');
  if (lookA.opacity !== lookB.opacity) found.push('opacity');
  if (lookA.scale !== lookB.scale) found.push('size');
  return found;
}

describe('the five shapes', () => {
  it('offers five shapes with names a person reads, and exactly those a bot file may name', () => {
    expect(ORB_SHAPES).toHaveLength(5);
    expect(ORB_SHAPES.map((shape) => shape.id)).toEqual([...BOT_FILE_SHAPES]);
    expect(new Set(ORB_SHAPES.map((shape) => englishSay(shape.name))).size).toBe(5);
    for (const shape of ORB_SHAPES) {
      expect(englishSay(shape.name)).toMatch(/^[A-Z][a-z]+$/);
      expect(englishSay(shape.description).length).toBeGreaterThan(10);
      expect(orbShape(shape.id)).toBe(shape);
    }
    expect(DEFAULT_ORB_SHAPE).toBe('halo');
  });

  it('tells a stored shape from anything else', () => {
    expect(isOrbShapeId('bloom')).toBe(true);
    expect(isOrbShapeId('Bloom')).toBe(false);
    expect(isOrbShapeId(undefined)).toBe(false);
  });

  it('refuses a shape that is not one of the five, naming the five', () => {
    expect(() => orbShape('star' as never)).toThrow('There is no orb shape "star"; the shapes are halo, ribbon, bloom, tide, lattice.');
  });
});

describe('how each state looks and is announced', () => {
  it('tells every two states apart in at least two ways with no movement', () => {
    for (const a of ORB_STATES) {
      for (const b of ORB_STATES) {
        if (a !== b) expect(differences(a, b).length, `${a} vs ${b}`).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it('draws thinking and connecting in different colours, patterns and sizes', () => {
    expect(differences('thinking', 'connecting')).toEqual(expect.arrayContaining(['colour', 'pattern', 'size']));
    expect(orbLook('connecting').dash.length).toBeGreaterThan(0);
    expect(orbLook('thinking').dash.length).toBeGreaterThan(0);
  });

  it('draws every state in a colour that stands 3:1 against the page', () => {
    for (const state of ORB_STATES) expect(contrast(ORB_LOOKS[state].colour, '#0b0d12'), state).toBeGreaterThanOrEqual(3);
  });

  it('announces every state in its own words', () => {
    const sentences = ORB_STATES.map((state) => orbSentence(state, englishSay));
    expect(new Set(sentences).size).toBe(ORB_STATES.length);
    expect(orbSentence('listening', englishSay)).toBe('Listening');
    expect(orbSentence('thinking', englishSay)).toBe('Thinking');
    expect(orbSentence('speaking', englishSay)).toBe('Speaking');
    expect(orbSentence('connecting', englishSay)).not.toBe(orbSentence('thinking', englishSay));
  });
});

describe('the scene a frame draws', () => {
  it('strokes every strand with the state’s colour and pattern, every other one set back', () => {
    const scene = orbScene('halo', createOrb('thinking'));
    scene.strands.forEach((strand, index) => {
      expect(strand.pen.colour).toBe(ORB_LOOKS.thinking.colour);
      expect(strand.pen.dash).toEqual(ORB_LOOKS.thinking.dash);
      expect(strand.pen.alpha).toBeLessThanOrEqual(ORB_LOOKS.thinking.opacity);
      if (index % 2 === 1) expect(strand.pen.alpha).toBeLessThan(scene.strands[0]?.pen.alpha ?? 0);
    });
  });

  it('glows brighter, wider and draws bolder with a louder sound', () => {
    let loud = createOrb('speaking');
    for (let k = 0; k < 30; k += 1) loud = stepOrb(loud, { assistantLevel: 1, micLevel: 0, assistantAudible: true, state: 'speaking' }, 16);
    const [quietScene, loudScene] = [orbScene('tide', createOrb('speaking')), orbScene('tide', loud)];
    expect(loudScene.glow.alpha).toBeGreaterThan(quietScene.glow.alpha);
    expect(loudScene.glow.radius).toBeGreaterThan(quietScene.glow.radius);
    expect(loudScene.strands[0]?.pen.width).toBeGreaterThan(quietScene.strands[0]?.pen.width ?? Number.POSITIVE_INFINITY);
  });
});
