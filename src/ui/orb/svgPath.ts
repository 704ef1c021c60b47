/**
 * Strand points as SVG path data, for drawings that stay still (the shape picker's thumbnails).
 */
import type { OrbPoint } from '../../core/orb/orbGeometry';

/** Path data through `points`, joined back to the first when `closed`; coordinates to 1/1000 of the orb's radius. */
export function svgPath(points: readonly OrbPoint[], closed: boolean): string {
  const steps = points.map((point, index) => `${index === 0 ? 'M' : 'L'}${round(point.x)} ${round(point.y)}`);
  return steps.join('') + (closed && steps.length > 0 ? 'Z' : '');
}

/** `value` to three decimals, without trailing zeros or a negative zero. */
function round(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return String(rounded === 0 ? 0 : rounded);
}
