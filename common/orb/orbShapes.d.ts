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
export declare const ORB_SHAPES: readonly OrbShape[];
/** The shape a page shows until a bot or a reader picks one. */
export declare const DEFAULT_ORB_SHAPE: OrbShapeId;
/** Whether `value` names one of the orb's shapes, e.g. a setting read back from storage. */
export declare function isOrbShapeId(value: unknown): value is OrbShapeId;
/** The shape with this id. */
export declare function orbShape(id: OrbShapeId): OrbShape;
