/**
 * The orb on its own: the real `Orb` component for the shape, state and level named in the query
 * (`?shape=bloom&state=speaking&level=0.6`; level 0 means nothing audible), and the five shape
 * thumbnails. `window.harness` reads the canvas back for the browser test.
 */
import { createApp, h, ref } from 'vue';
import Orb from '../../../src/ui/orb/Orb.vue';
import OrbThumbnail from '../../../src/ui/orb/OrbThumbnail.vue';
import type { OrbLevels } from '../../../src/core/orb/orbModel';
import { isOrbShapeId, ORB_SHAPES } from '../../../common/orb/orbShapes';
import { ORB_STATES } from '../../../src/core/orb/orbState';
import type { OrbState } from '../../../src/core/orb/orbState';
import '../../../src/ui/base.css';

/** What the browser test reads and drives, on `window.harness`. */
export interface OrbHarness {
  /** How many times the orb has read the levels: once per animation frame it ran. */
  framesRead(): number;
  /** How many canvas pixels are not transparent. */
  litPixels(): number;
  /** A fingerprint of every canvas pixel: equal for equal pictures. */
  picture(): string;
  /** Shows another state, as the page would when the conversation moves on. */
  setState(state: OrbState): void;
}

const isOrbState = (value: unknown): value is OrbState => ORB_STATES.some((state) => state === value);

const query = new URLSearchParams(window.location.search);
const shape = query.get('shape') ?? 'halo';
const firstState = query.get('state') ?? 'speaking';
const level = Number(query.get('level') ?? '0.6');
if (!isOrbShapeId(shape)) throw new Error(`?shape=${shape} is not one of ${ORB_SHAPES.map((s) => s.id).join(', ')}.`);
if (!isOrbState(firstState)) throw new Error(`?state=${firstState} is not one of ${ORB_STATES.join(', ')}.`);
if (!(level >= 0 && level <= 1)) throw new Error(`?level=${String(level)} must be a number from 0 to 1.`);

let framesRead = 0;
const state = ref<OrbState>(firstState);
const levels = (): OrbLevels => {
  framesRead += 1;
  return { assistantLevel: level, micLevel: 0, assistantAudible: level > 0 };
};

createApp({
  render: () => [
    h('div', { id: 'orb', style: 'width: 240px' }, [h(Orb, { shape, state: state.value, levels })]),
    h(
      'ul',
      { style: 'display: flex; gap: 12px; list-style: none; padding: 0; color: #7cc4ff' },
      ORB_SHAPES.map((s) => h('li', { key: s.id, style: 'width: 48px' }, [h(OrbThumbnail, { shape: s.id })])),
    ),
  ],
}).mount('#harness');

function pixels(): Uint8ClampedArray {
  const canvas = document.querySelector<HTMLCanvasElement>('#orb canvas');
  const context = canvas?.getContext('2d');
  if (!canvas || !context) throw new Error('The orb has no 2D canvas.');
  return context.getImageData(0, 0, canvas.width, canvas.height).data;
}

const harness: OrbHarness = {
  framesRead: () => framesRead,
  litPixels() {
    const data = pixels();
    let lit = 0;
    for (let at = 3; at < data.length; at += 4) if ((data[at] ?? 0) > 16) lit += 1;
    return lit;
  },
  picture() {
    const data = pixels();
    // FNV-1a over the bytes: two different pictures colliding is not a concern for a test.
    let hash = 0x811c9dc5;
    for (const byte of data) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    return `${data.length}:${hash.toString(16)}`;
  },
  setState(next) {
    state.value = next;
  },
};
(window as unknown as { harness: OrbHarness }).harness = harness;
