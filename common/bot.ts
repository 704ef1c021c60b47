/**
 * What a page may know of a bot, shared by the server that reads bot files and the page that talks
 * to the bot: who speaks, which shape the orb takes, what it remembers, and the public part of the
 * file (never its prompt, provider, model or limits).
 */
import { ORB_SHAPES as SHAPES } from './orb/orbShapes';
import type { OrbShapeId } from './orb/orbShapes';
import type { Talk } from './talk';
import type { Language } from './voice/text';

/** Who speaks a bot's answers: the page's own engine, or the deployment's speech endpoint. */
export const SPEAKERS = ['browser', 'endpoint'] as const;
type Speaker = (typeof SPEAKERS)[number];

/** The five shapes the orb can take, by id (common/orb/orbShapes.ts draws and names them). */
export const ORB_SHAPES: readonly OrbShapeId[] = Object.freeze(SHAPES.map((shape) => shape.id));
export type OrbShape = OrbShapeId;

/**
 * What a bot remembers: `none` the question alone, `thread` the conversation the page sends,
 * `person` also what this person asked this bot before, `person+recall` also what they told it,
 * found by meaning — the only kind that writes anything down.
 */
export const MEMORY_KINDS = ['none', 'thread', 'person', 'person+recall'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** How a bot sounds and looks: the talk timings (see `Talk`) plus who speaks and how. */
export interface BotVoice extends Talk {
  /** Who speaks: `browser` (the page's own engine, default) or `endpoint` (`/api/speak`). */
  by: Speaker;
  /** The orb's shape until the reader picks their own. Default `halo`. */
  visual: OrbShape;
  /**
   * The voices offered, the first being the default. `browser`: names from `VOICES`, default all
   * ten. `endpoint`: the endpoint's own names; empty (the default) offers the deployment's
   * `COPILOT_TTS_VOICES`.
   */
  voices: string[];
  /** The language spoken and recognised until the reader picks another. Default `en`. */
  language: Language;
}

/** The part of a bot a page may see: never the prompt, the provider, the model or the limits. */
export interface PublicBot {
  slug: string;
  name: string;
  voice: BotVoice;
  memory: MemoryKind;
  languages: Language[];
  greeting?: string;
}
