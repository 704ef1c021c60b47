/**
 * Everything one frame of the orb draws, worked out without a canvas: the strands of the chosen
 * shape with the pen each is stroked with, and the glow behind them. A Vue component, a test or a
 * thumbnail turns it into pixels or paths without deciding anything.
 */
import { orbLook } from './orbLook';
import type { OrbModel } from './orbModel';
import type { OrbShapeId } from '../../../common/orb/orbShapes';
import { orbStrands } from './orbGeometry';
import type { OrbPoint } from './orbGeometry';
import { ORB } from './orbTuning';
import type { OrbTuning } from './orbTuning';

/** How one strand is stroked. Lengths are shares of the orb's radius. */
interface OrbPen {
  /** `#rrggbb`. */
  readonly colour: string;
  /** Opacity, 0..1. */
  readonly alpha: number;
  readonly width: number;
  /** Alternating dash and gap lengths; empty for a solid line. */
  readonly dash: readonly number[];
}

/** A soft light behind the strands that grows with the level. */
interface OrbGlow {
  /** `#rrggbb`. */
  readonly colour: string;
  /** Radius, as a share of the orb's radius. */
  readonly radius: number;
  /** Opacity at the centre, 0..1. */
  readonly alpha: number;
}

/** One strand as drawn. */
interface OrbSceneStrand {
  readonly points: readonly OrbPoint[];
  readonly closed: boolean;
  readonly pen: OrbPen;
}

/** One frame of the orb, in the orb's own space (centre 0, radius 1). */
export interface OrbScene {
  readonly glow: OrbGlow;
  readonly strands: readonly OrbSceneStrand[];
}

/** Every other strand is set back to this share of the opacity, so the bundle has depth. */
const SET_BACK = 0.6;

/** The frame `model` draws as `shape`. */
export function orbScene(shape: OrbShapeId, model: OrbModel, tuning: OrbTuning = ORB): OrbScene {
  const look = orbLook(model.state);
  const strands = orbStrands(shape, { phases: model.phases, level: model.level, scale: look.scale, segments: tuning.segments });
  // A louder sound draws bolder strands as well as wider ones.
  const width = look.lineWidth * (1 + 0.6 * model.level);
  return {
    glow: { colour: look.colour, radius: look.scale * (0.5 + 0.35 * model.level), alpha: 0.08 + 0.22 * model.level },
    strands: strands.map((strand, index) => ({
      ...strand,
      pen: { colour: look.colour, alpha: look.opacity * (index % 2 === 0 ? 1 : SET_BACK), width, dash: look.dash },
    })),
  };
}
