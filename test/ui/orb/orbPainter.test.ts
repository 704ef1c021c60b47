import { describe, expect, it } from 'vitest';
import { canvasPainter, paintOrb, withAlpha } from '../../../src/ui/orb/orbPainter';
import type { OrbPainter, PixelPen } from '../../../src/ui/orb/orbPainter';
import { svgPath } from '../../../src/ui/orb/svgPath';
import type { OrbPoint } from '../../../src/core/orb/orbGeometry';
import type { OrbScene } from '../../../src/core/orb/orbScene';

const scene: OrbScene = {
  glow: { colour: '#7cc4ff', radius: 0.5, alpha: 0.2 },
  strands: [
    {
      points: [{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 0, y: -1 }],
      closed: true,
      pen: { colour: '#7cc4ff', alpha: 0.9, width: 0.01, dash: [0.1, 0.05] },
    },
  ],
};

describe('painting a scene', () => {
  it('places the orb in the middle of the surface, its radius filling most of the half-width', () => {
    const strokes: { points: readonly OrbPoint[]; pen: PixelPen }[] = [];
    const glows: { centre: OrbPoint; radius: number }[] = [];
    const painter: OrbPainter = {
      begin: () => undefined,
      glow: (centre, radius) => glows.push({ centre, radius }),
      stroke: (points, _closed, pen) => strokes.push({ points, pen }),
    };
    paintOrb(painter, scene, 200, 2);
    const radius = 100 * 0.94;
    expect(strokes[0]?.points).toEqual([{ x: 100, y: 100 }, { x: 100 + radius, y: 100 }, { x: 100, y: 100 - radius }]);
    expect(strokes[0]?.pen.dash).toEqual([0.1 * radius, 0.05 * radius]);
    expect(strokes[0]?.pen.width).toBeCloseTo(0.01 * radius, 9);
    expect(glows).toEqual([{ centre: { x: 100, y: 100 }, radius: 0.5 * radius }]);
  });

  it('keeps a line at least one device pixel wide on a small orb', () => {
    const widths: number[] = [];
    const painter: OrbPainter = { begin: () => undefined, glow: () => undefined, stroke: (_p, _c, pen) => widths.push(pen.width) };
    paintOrb(painter, scene, 20, 2);
    expect(widths).toEqual([0.5]);
  });

  it('writes a colour at an opacity as CSS', () => {
    expect(withAlpha('#7cc4ff', 0.25)).toBe('rgba(124, 196, 255, 0.25)');
  });
});

describe('the canvas painter', () => {
  it('is not made where the canvas has no 2D context', () => {
    const canvas = { getContext: () => null } as unknown as HTMLCanvasElement;
    expect(canvasPainter(canvas)).toBeNull();
  });

  it('sizes the canvas in device pixels, draws in CSS pixels and closes a closed strand', () => {
    const calls: string[] = [];
    const context = new Proxy(
      {},
      {
        get: (_target, name) =>
          name === 'createRadialGradient' ? () => ({ addColorStop: () => undefined }) : (...args: unknown[]) => calls.push(`${String(name)}(${args.join(',')})`),
        set: (_target, name, value) => {
          calls.push(`${String(name)}=${String(value)}`);
          return true;
        },
      },
    );
    const canvas = { width: 300, height: 150, getContext: () => context } as unknown as HTMLCanvasElement;
    const painter = canvasPainter(canvas);
    painter?.begin(120, 2);
    painter?.stroke([{ x: 1, y: 2 }, { x: 3, y: 4 }], true, { colour: '#ffffff', alpha: 0.5, width: 2, dash: [] });
    expect([canvas.width, canvas.height]).toEqual([240, 240]);
    expect(calls).toEqual(
      expect.arrayContaining(['setTransform(2,0,0,2,0,0)', 'clearRect(0,0,120,120)', 'moveTo(1,2)', 'lineTo(3,4)', 'closePath()', 'globalAlpha=0.5', 'stroke()']),
    );
  });
});

describe('strand points as SVG path data', () => {
  it('moves to the first point, lines to the rest and closes a loop', () => {
    expect(svgPath([{ x: 0.12345, y: -0 }, { x: -1, y: 0.5 }], true)).toBe('M0.123 0L-1 0.5Z');
    expect(svgPath([{ x: 0, y: 0 }, { x: 1, y: 1 }], false)).toBe('M0 0L1 1');
    expect(svgPath([], true)).toBe('');
  });
});
