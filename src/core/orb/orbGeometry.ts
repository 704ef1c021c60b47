/**
 * The strands of each shape as point lists, in the orb's own space: the centre at (0, 0), the
 * orb's radius 1, y pointing down as on a screen. The page only scales and strokes them.
 *
 * Every shape uses a strand's phase only inside sin and cos, so a phase wrapped by 2π draws the
 * same strand; and every shape keeps all its points within radius 1 at any level, so nothing is
 * clipped at the canvas edge.
 */
import type { OrbShapeId } from '../../../common/orb/orbShapes';

/** A point in the orb's space (radius 1). */
export interface OrbPoint {
  readonly x: number;
  readonly y: number;
}

/** One strand: its points in drawing order, and whether the last joins back to the first. */
export interface OrbStrand {
  readonly points: readonly OrbPoint[];
  readonly closed: boolean;
}

/** What the strands are drawn from. */
export interface StrandInput {
  /** Each strand's phase, in radians; one strand per phase. */
  readonly phases: readonly number[];
  /** The drawn level, 0..1: how far the strands swell and swing. */
  readonly level: number;
  /** The shape's size relative to the full orb, 0..1. */
  readonly scale: number;
  /** How many segments each strand is drawn with. */
  readonly segments: number;
}

/** What one point of one strand depends on. */
interface StrandParams {
  readonly phase: number;
  readonly index: number;
  /** How many strands the shape has. */
  readonly count: number;
  /** Where the strand sits in the bundle, from about -0.5 (first) to 0.5 (last). */
  readonly offset: number;
  readonly level: number;
}

/** A shape's recipe: whether its strands close, and where strand point `u` (0..1 along it) lies. */
interface ShapeForm {
  readonly closed: boolean;
  at(u: number, strand: StrandParams): OrbPoint;
}

const TURN = 2 * Math.PI;

/** Rings round a circle, each rippling with its own number of waves, so ripples cross as they turn. */
const halo: ShapeForm = {
  closed: true,
  at(u, { phase, index, offset, level }) {
    const angle = TURN * u;
    const waves = 3 + (index % 3);
    const radius = 0.66 + 0.12 * offset + (0.05 + 0.15 * level) * Math.sin(waves * angle + phase);
    return { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
  },
};

/** A band of strands looping a figure of eight, each swinging across the band: a braid. */
const ribbon: ShapeForm = {
  closed: true,
  at(u, { phase, offset, level }) {
    const t = TURN * u;
    const along = { x: 0.74 * Math.cos(t), y: 0.4 * Math.sin(2 * t) };
    // The tangent never vanishes: sin t and cos 2t are never zero together.
    const tangent = { x: -0.74 * Math.sin(t), y: 0.8 * Math.cos(2 * t) };
    const length = Math.hypot(tangent.x, tangent.y);
    const across = 0.14 * offset + (0.05 + 0.1 * level) * Math.sin(3 * t + phase);
    return { x: along.x - (tangent.y / length) * across, y: along.y + (tangent.x / length) * across };
  },
};

/** Five-petalled flowers of slightly different sizes laid over one another at different turns. */
const bloom: ShapeForm = {
  closed: true,
  at(u, { phase, index, level }) {
    const angle = TURN * u;
    const petal = Math.pow((1 + Math.cos(5 * angle + phase)) / 2, 1.5);
    const size = 0.88 + 0.06 * (index % 3);
    const radius = size * (0.2 + (0.52 + 0.18 * level) * petal);
    return { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
  },
};

/** Waves running across the middle, gathered at both ends, every other one running the other way. */
const tide: ShapeForm = {
  closed: false,
  at(u, { phase, index, offset, level }) {
    const across = 2 * u - 1;
    const gather = Math.pow(Math.max(0, 1 - across * across), 1.2);
    const waves = 1.5 + 0.5 * (index % 3);
    const height = 0.28 * offset + (0.15 + 0.26 * level) * Math.sin(waves * Math.PI * across + phase);
    return { x: 0.92 * across, y: gather * height };
  },
};

/** The globe seen a little from above: rings at spread tilts, each turning round the upright axis. */
const VIEW_TILT_RAD = 0.42;
const lattice: ShapeForm = {
  closed: true,
  at(u, { phase, index, count, level }) {
    const t = TURN * u;
    // Tilts spread evenly over a half turn (a ring tilted a whole half turn is the same ring),
    // none of them flat, which would look the same at every turn.
    const tilt = (Math.PI * (index + 0.5)) / count;
    const radius = (0.74 + 0.14 * level) * (1 + (0.02 + 0.06 * level) * Math.sin(4 * t + phase + index));
    const ring = { x: radius * Math.cos(t), y: -radius * Math.sin(t) * Math.sin(tilt), z: radius * Math.sin(t) * Math.cos(tilt) };
    const turned = { x: ring.x * Math.cos(phase) + ring.z * Math.sin(phase), z: -ring.x * Math.sin(phase) + ring.z * Math.cos(phase) };
    return { x: turned.x, y: ring.y * Math.cos(VIEW_TILT_RAD) - turned.z * Math.sin(VIEW_TILT_RAD) };
  },
};

const FORMS: Readonly<Record<OrbShapeId, ShapeForm>> = Object.freeze({ halo, ribbon, bloom, tide, lattice });

/** The strands of `shape` for the given phases and level, one per phase. */
export function orbStrands(shape: OrbShapeId, input: StrandInput): OrbStrand[] {
  const form = FORMS[shape];
  const count = input.phases.length;
  // A closed strand's last point is its first, so it takes one point fewer.
  const pointCount = form.closed ? input.segments : input.segments + 1;
  return input.phases.map((phase, index) => {
    const strand: StrandParams = { phase, index, count, offset: count > 1 ? index / (count - 1) - 0.5 : 0, level: input.level };
    const points = Array.from({ length: pointCount }, (_, k) => {
      const point = form.at(k / input.segments, strand);
      return { x: input.scale * point.x, y: input.scale * point.y };
    });
    return { points, closed: form.closed };
  });
}
