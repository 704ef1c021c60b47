/**
 * The five shapes the orb can take. A shape is a look, and nobody picks a look from a list of
 * words, so settings offer them as five little drawings; the names here label those drawings for
 * people who cannot see them. The ids are the ones a bot file's `voice.visual` accepts.
 */

/** The id of one of the orb's shapes, as a bot file's `voice.visual` names it. */
export type OrbShapeId = 'halo' | 'ribbon' | 'bloom' | 'tide' | 'lattice';

/** One shape the orb can take, with the words that name it. */
export interface OrbShape {
  /** The id stored in settings and bot files. */
  readonly id: OrbShapeId;
  /** A one-word name a person recognises ("Halo"). */
  readonly name: string;
  /** What the drawing shows, for the picker's label ("Rings rippling round a circle"). */
  readonly description: string;
}

/** Every shape, in the order settings offer them; the first is the default. */
export const ORB_SHAPES: readonly OrbShape[] = Object.freeze([
  { id: 'halo', name: 'Halo', description: 'Rings rippling round a circle' },
  { id: 'ribbon', name: 'Ribbon', description: 'A braided band looping in a figure of eight' },
  { id: 'bloom', name: 'Bloom', description: 'Petals of a flower laid over one another' },
  { id: 'tide', name: 'Tide', description: 'Waves running side by side across the middle' },
  { id: 'lattice', name: 'Lattice', description: 'Rings turning round a globe' },
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
