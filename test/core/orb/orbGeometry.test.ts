import { describe, expect, it } from 'vitest';
import { orbStrands } from '../../../src/core/orb/orbGeometry';
import type { OrbStrand, StrandInput } from '../../../src/core/orb/orbGeometry';
import { createOrb, stepOrb } from '../../../src/core/orb/orbModel';
import { orbScene } from '../../../src/core/orb/orbScene';
import { ORB_SHAPES } from '../../../common/orb/orbShapes';
import { ORB_STATES } from '../../../src/core/orb/orbState';
import { ORB } from '../../../src/core/orb/orbTuning';
import { seededRandom } from '../../helpers/random';

const input = (overrides: Partial<StrandInput> = {}): StrandInput => ({
  phases: createOrb('listening').phases,
  level: 0,
  scale: 1,
  segments: 96,
  ...overrides,
});

/** The largest distance between corresponding points of two sets of strands. */
function farthestApart(a: OrbStrand[], b: OrbStrand[]): number {
  let farthest = 0;
  a.forEach((strand, s) => {
    strand.points.forEach((point, p) => {
      const other = b[s]?.points[p];
      farthest = Math.max(farthest, other ? Math.hypot(point.x - other.x, point.y - other.y) : Number.POSITIVE_INFINITY);
    });
  });
  return farthest;
}

/** The strands' total length: a strand that swings further runs longer. */
const length = (strands: OrbStrand[]) =>
  strands.reduce((sum, { points, closed }) => {
    const path = closed && points[0] ? [...points, points[0]] : points;
    return sum + path.slice(1).reduce((run, point, k) => run + Math.hypot(point.x - (path[k]?.x ?? 0), point.y - (path[k]?.y ?? 0)), 0);
  }, 0);

/** How far the farthest point of any strand lies from the centre. */
const reach = (strands: OrbStrand[]) => Math.max(...strands.flatMap((strand) => strand.points.map((p) => Math.hypot(p.x, p.y))));

describe('strand geometry', () => {
  it('gives every shape finite points inside the orb in every state, at every level and phase', () => {
    const random = seededRandom(3);
    const strays: string[] = [];
    for (const shape of ORB_SHAPES) {
      for (const state of ORB_STATES) {
        for (const level of [0, 0.5, 1]) {
          let model = createOrb(state);
          for (let k = 0; k < 12; k += 1) {
            model = stepOrb(model, { assistantLevel: level, micLevel: 0, assistantAudible: true, state }, 250 * random());
            const scene = orbScene(shape.id, model);
            expect(scene.strands).toHaveLength(ORB.strands);
            const points = scene.strands.flatMap((strand) => strand.points);
            expect(points.length).toBeGreaterThanOrEqual(ORB.strands * ORB.segments);
            const stray = points.find((p) => !(Math.hypot(p.x, p.y) <= 1));
            if (stray) strays.push(`${shape.id} ${state} level ${level}: (${stray.x}, ${stray.y})`);
          }
        }
      }
    }
    expect(strays).toEqual([]);
  });

  it('draws one strand per phase: closed loops with one point per segment, or open waves with both ends', () => {
    for (const shape of ORB_SHAPES) {
      const strands = orbStrands(shape.id, input({ phases: [0, 1, 2], segments: 50 }));
      expect(strands).toHaveLength(3);
      for (const strand of strands) expect(strand.points).toHaveLength(strand.closed ? 50 : 51);
    }
    expect(orbStrands('tide', input())[0]?.closed).toBe(false);
    expect(orbStrands('halo', input())[0]?.closed).toBe(true);
  });

  it('draws the same strand for a phase a whole turn on, so wrapping the phase never shows', () => {
    for (const shape of ORB_SHAPES) {
      const phases = [0.3, 1.7, 4];
      const turnedOnce = orbStrands(shape.id, input({ phases: phases.map((p) => p + 2 * Math.PI) }));
      expect(farthestApart(orbStrands(shape.id, input({ phases })), turnedOnce)).toBeLessThan(1e-9);
    }
  });

  it('moves every shape as its phases turn', () => {
    for (const shape of ORB_SHAPES) {
      const before = orbStrands(shape.id, input({ phases: [0, 1, 2, 3] }));
      const after = orbStrands(shape.id, input({ phases: [0.5, 0.5, 2.5, 2.5] }));
      expect(farthestApart(before, after), shape.id).toBeGreaterThan(0.02);
    }
  });

  it('swells and swings further with a louder sound', () => {
    for (const shape of ORB_SHAPES) {
      const quiet = orbStrands(shape.id, input({ level: 0 }));
      const loud = orbStrands(shape.id, input({ level: 1 }));
      expect(length(loud), shape.id).toBeGreaterThan(1.05 * length(quiet));
    }
  });

  it('scales the whole shape by the given size', () => {
    for (const shape of ORB_SHAPES) {
      expect(reach(orbStrands(shape.id, input({ scale: 0.5 })))).toBeCloseTo(reach(orbStrands(shape.id, input())) / 2, 9);
    }
  });

  it('makes five different shapes', () => {
    const drawn = ORB_SHAPES.map((shape) => orbStrands(shape.id, input()));
    for (let a = 0; a < drawn.length; a += 1) {
      for (let b = a + 1; b < drawn.length; b += 1) {
        expect(farthestApart(drawn[a] ?? [], drawn[b] ?? [])).toBeGreaterThan(0.2);
      }
    }
  });

  it('draws a single strand in the middle of its bundle', () => {
    for (const shape of ORB_SHAPES) {
      const [strand] = orbStrands(shape.id, input({ phases: [1] }));
      for (const point of strand?.points ?? []) expect(Number.isFinite(point.x + point.y)).toBe(true);
    }
  });
});
