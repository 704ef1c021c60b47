// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import Orb from '../../../src/ui/orb/Orb.vue';
import type { OrbPainter, PixelPen } from '../../../src/ui/orb/orbPainter';
import type { OrbPoint } from '../../../src/core/orb/orbGeometry';
import { ORB_LOOKS } from '../../../src/core/orb/orbLook';
import type { OrbLevels } from '../../../src/core/orb/orbModel';
import { ORB_STATES, orbSentence } from '../../../src/core/orb/orbState';
import type { OrbState } from '../../../src/core/orb/orbState';
import type { OrbShapeId } from '../../../common/orb/orbShapes';
import { englishSay } from '../../helpers/pageWords';

/** One paint as a painter saw it: the surface and every strand stroked. */
interface Paint {
  sizeCssPx: number;
  pixelRatio: number;
  strokes: { points: readonly OrbPoint[]; pen: PixelPen }[];
}

/** A painter that keeps every paint, for a test to read back. */
function recordingPainter(): { paints: Paint[]; createPainter: () => OrbPainter } {
  const paints: Paint[] = [];
  const painter: OrbPainter = {
    begin(sizeCssPx, pixelRatio) {
      paints.push({ sizeCssPx, pixelRatio, strokes: [] });
    },
    glow() {
      // The glow is part of every paint; these tests count paints by `begin`.
    },
    stroke(points, _closed, pen) {
      paints.at(-1)?.strokes.push({ points, pen });
    },
  };
  return { paints, createPainter: () => painter };
}

/** Animation frames that run only when the test says, at the time it says. */
function manualFrames() {
  const pending = new Map<number, FrameRequestCallback>();
  let nextId = 1;
  const request = vi.fn((callback: FrameRequestCallback) => {
    pending.set(nextId, callback);
    return nextId++;
  });
  vi.stubGlobal('requestAnimationFrame', request);
  vi.stubGlobal('cancelAnimationFrame', (id: number) => pending.delete(id));
  return {
    request,
    get pending() {
      return pending.size;
    },
    /** Runs the frames requested so far at `nowMs`. */
    run(nowMs: number) {
      const due = [...pending.values()];
      pending.clear();
      for (const callback of due) callback(nowMs);
    },
  };
}

/** The person's reduced-motion setting, which the test can change while the orb is up. */
function motionSetting(reduce: boolean) {
  const listeners = new Set<(event: MediaQueryListEvent) => void>();
  const query = {
    matches: reduce,
    media: '(prefers-reduced-motion: reduce)',
    addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => listeners.delete(listener),
  };
  vi.spyOn(window, 'matchMedia').mockImplementation(() => query as unknown as MediaQueryList);
  return {
    get listeners() {
      return listeners.size;
    },
    set(next: boolean) {
      query.matches = next;
      for (const listener of listeners) listener({ matches: next } as MediaQueryListEvent);
    },
  };
}

const speaking: OrbLevels = { assistantLevel: 0.7, micLevel: 0, assistantAudible: true };

function mountOrb(props: { shape?: OrbShapeId; state?: OrbState; levels?: () => OrbLevels; reducedMotion?: boolean } = {}) {
  const recorder = recordingPainter();
  const wrapper = mount(Orb, {
    props: { shape: 'halo', state: 'listening', createPainter: recorder.createPainter, ...props },
    attachTo: document.body,
  });
  return { wrapper, paints: recorder.paints };
}

let frames: ReturnType<typeof manualFrames>;

beforeEach(() => {
  frames = manualFrames();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  document.body.innerHTML = '';
});

describe('under reduced motion', () => {
  it('paints the shape exactly once and never asks for an animation frame', async () => {
    motionSetting(true);
    const levels = vi.fn(() => speaking);
    const { wrapper, paints } = mountOrb({ levels });
    await wrapper.vm.$nextTick();
    expect(paints).toHaveLength(1);
    expect(frames.request).not.toHaveBeenCalled();
    expect(levels).not.toHaveBeenCalled();
    expect(wrapper.attributes('data-motion')).toBe('still');
  });

  it('repaints once for a new state or shape, still, and announces the new state', async () => {
    motionSetting(true);
    const { wrapper, paints } = mountOrb({ state: 'listening' });
    await wrapper.setProps({ state: 'thinking' });
    expect(paints).toHaveLength(2);
    expect(paints[1]?.strokes[0]?.pen.colour).toBe(ORB_LOOKS.thinking.colour);
    expect(wrapper.get('[role="status"]').text()).toBe('Thinking');
    await wrapper.setProps({ shape: 'tide' });
    expect(paints).toHaveLength(3);
    expect(frames.request).not.toHaveBeenCalled();
  });

  it('paints the same picture for the same shape and state, whatever the sound was', async () => {
    motionSetting(true);
    const { wrapper, paints } = mountOrb({ state: 'speaking', levels: () => speaking });
    await wrapper.setProps({ state: 'thinking' });
    await wrapper.setProps({ state: 'speaking' });
    expect(paints[2]?.strokes).toEqual(paints[0]?.strokes);
  });

  it('lets the page force stillness, or motion, over the person’s setting', () => {
    motionSetting(false);
    const forcedStill = mountOrb({ reducedMotion: true });
    expect(forcedStill.paints).toHaveLength(1);
    expect(frames.request).not.toHaveBeenCalled();
    forcedStill.wrapper.unmount();

    motionSetting(true);
    mountOrb({ reducedMotion: false });
    expect(frames.request).toHaveBeenCalledTimes(1);
  });
});

describe('in motion', () => {
  it('reads the levels once and paints once per animation frame, and the picture moves', () => {
    motionSetting(false);
    const levels = vi.fn(() => speaking);
    const { paints } = mountOrb({ levels });
    expect(paints).toHaveLength(0);
    for (const nowMs of [1000, 1016, 1033, 1050]) frames.run(nowMs);
    expect(levels).toHaveBeenCalledTimes(4);
    expect(paints).toHaveLength(4);
    expect(paints[3]?.strokes[0]?.points).not.toEqual(paints[2]?.strokes[0]?.points);
    expect(frames.pending).toBe(1);
  });

  it('asks for no more frames once unmounted', () => {
    motionSetting(false);
    const levels = vi.fn(() => speaking);
    const { wrapper } = mountOrb({ levels });
    frames.run(0);
    wrapper.unmount();
    expect(frames.pending).toBe(0);
    frames.run(16);
    expect(levels).toHaveBeenCalledTimes(1);
  });

  it('stops and paints once, still, when the person turns reduced motion on, and moves again when it is off', async () => {
    const setting = motionSetting(false);
    const levels = vi.fn(() => speaking);
    const { wrapper, paints } = mountOrb({ levels });
    frames.run(0);
    frames.run(16);
    setting.set(true);
    await wrapper.vm.$nextTick();
    expect(frames.pending).toBe(0);
    expect(paints).toHaveLength(3);
    expect(wrapper.attributes('data-motion')).toBe('still');
    setting.set(false);
    await wrapper.vm.$nextTick();
    expect(frames.pending).toBe(1);
    expect(levels).toHaveBeenCalledTimes(2);
  });

  it('stops listening to the setting when unmounted', () => {
    const setting = motionSetting(false);
    const { wrapper } = mountOrb();
    expect(setting.listeners).toBe(1);
    wrapper.unmount();
    expect(setting.listeners).toBe(0);
  });

  it('paints at the device’s pixel ratio', () => {
    motionSetting(true);
    vi.spyOn(window, 'devicePixelRatio', 'get').mockReturnValue(2);
    const { paints } = mountOrb();
    expect(paints[0]?.pixelRatio).toBe(2);
    expect(paints[0]?.sizeCssPx).toBeGreaterThan(0);
  });
});

describe('what assistive technology hears', () => {
  it('announces each state in words, politely, and hides the picture itself', async () => {
    motionSetting(true);
    const { wrapper } = mountOrb();
    const status = wrapper.get('[role="status"]');
    expect(status.attributes('aria-live')).toBe('polite');
    expect(wrapper.get('canvas').attributes('aria-hidden')).toBe('true');
    for (const state of ORB_STATES) {
      await wrapper.setProps({ state });
      expect(status.text()).toBe(orbSentence(state, englishSay));
    }
  });

  it('announces the page’s own sentence in place of the state’s when it is given one', async () => {
    motionSetting(true);
    const { wrapper } = mountOrb();
    await wrapper.setProps({ state: 'listening', sentence: 'Waiting for your yes or no' });
    expect(wrapper.get('[role="status"]').text()).toBe('Waiting for your yes or no');
    await wrapper.setProps({ sentence: undefined });
    expect(wrapper.get('[role="status"]').text()).toBe('Listening');
  });
});

describe('where the canvas cannot draw', () => {
  it('mounts, announces and animates without drawing rather than failing', () => {
    motionSetting(false);
    const levels = vi.fn(() => speaking);
    const wrapper = mount(Orb, { props: { shape: 'bloom', state: 'speaking', levels, createPainter: () => null } });
    frames.run(0);
    expect(levels).toHaveBeenCalledTimes(1);
    expect(wrapper.get('[role="status"]').text()).toBe('Speaking');
  });
});
