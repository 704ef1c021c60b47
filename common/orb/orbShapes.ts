/**
 * The five shapes the orb can take. A shape is a look, and nobody picks a look from a list of
 * words, so settings offer them as five little drawings; the names here label those drawings for
 * people who cannot see them. The ids are the ones a bot file's `voice.visual` accepts.
 */
import type { PageWordKey } from '../pageWords';

/** The id of one of the orb's shapes, as a bot file's `voice.visual` names it. */
export type OrbShapeId = 'halo' | 'ribbon' | 'bloom' | 'tide' | 'lattice';

/** One shape the orb can take, with the words (`words/<lang>.md`, `## page-orb`) that name it. */
export interface OrbShape {
  /** The id stored in settings and bot files. */
  readonly id: OrbShapeId;
  /** A one-word name a person recognises ("Halo"). */
  readonly name: PageWordKey;
  /** What the drawing shows, for the picker's label ("Rings rippling round a circle"). */
  readonly description: PageWordKey;
}

/** Every shape, in the order settings offer them; the first is the default. */
export const ORB_SHAPES: readonly OrbShape[] = Object.freeze([
  { id: 'halo', name: 'page-orb.halo', description: 'page-orb.halo-drawn' },
  { id: 'ribbon', name: 'page-orb.ribbon', description: 'page-orb.ribbon-drawn' },
  { id: 'bloom', name: 'page-orb.bloom', description: 'page-orb.bloom-drawn' },
  { id: 'tide', name: 'page-orb.tide', description: 'page-orb.tide-drawn' },
  { id: 'lattice', name: 'page-orb.lattice', description: 'page-orb.lattice-drawn' },
] as const satisfies readonly OrbShape[]);

/** The shape a page shows until a bot or a reader picks one. */
export const DEFAULT_ORB_SHAPE: OrbShapeId = 'halo';

/** Whether `value` names one of the orb's shapes, e.g. a setting read back from storage. */
export function isOrbShapeId(value: unknown): value is OrbShapeId {
  return ORB_SHAPES.some((shape) => shape.id === value);
}

/** The shape with this id. */
export function orbShape(id: OrbShapeId): OrbShape {
  const shape = ORB_SHAPES.find((candidate) => candidate.id === id);
  // The id type admits only listed shapes, so this throws only for a value cast past the type.
  if (!shape) throw new RangeError(`There is no orb shape "${id}"; the shapes are ${ORB_SHAPES.map((s) => s.id).join(', ')}.`);
  return shape;
}
