/**
 * Turning an orb scene into pixels. The drawing goes through `OrbPainter`, a surface with three
 * verbs, so the component does not depend on a canvas being there: the browser gets the canvas 2D
 * painter, a test a recording one.
 */
import type { OrbPoint } from '../../core/orb/orbGeometry';
import type { OrbScene } from '../../core/orb/orbScene';

/** How a line is stroked, in CSS pixels. */
export interface PixelPen {
  /** `#rrggbb`. */
  readonly colour: string;
  /** Opacity, 0..1. */
  readonly alpha: number;
  /** Width in CSS pixels. */
  readonly width: number;
  /** Alternating dash and gap lengths in CSS pixels; empty for a solid line. */
  readonly dash: readonly number[];
}

/** A square surface the orb is drawn on; every length is in CSS pixels. */
export interface OrbPainter {
  /** Readies the surface at `sizeCssPx` square with `pixelRatio` device pixels to each CSS pixel, cleared. */
  begin(sizeCssPx: number, pixelRatio: number): void;
  /** A round light centred at `centre`, fading from `alpha` there to nothing at `radius`. */
  glow(centre: OrbPoint, radius: number, colour: string, alpha: number): void;
  /** A line through `points`, joined back to the first when `closed`. */
  stroke(points: readonly OrbPoint[], closed: boolean, pen: PixelPen): void;
}

/** The share of the surface's half-width the orb's radius takes, leaving room for the line's width. */
const FILL = 0.94;

/** Paints `scene` on `painter` at `sizeCssPx` square; the orb's radius fills most of the half-width. */
export function paintOrb(painter: OrbPainter, scene: OrbScene, sizeCssPx: number, pixelRatio: number): void {
  const half = sizeCssPx / 2;
  const radius = half * FILL;
  const place = (point: OrbPoint): OrbPoint => ({ x: half + radius * point.x, y: half + radius * point.y });
  painter.begin(sizeCssPx, pixelRatio);
  painter.glow({ x: half, y: half }, radius * scene.glow.radius, scene.glow.colour, scene.glow.alpha);
  for (const strand of scene.strands) {
    const { colour, alpha, width, dash } = strand.pen;
    // A line under one device pixel wide greys out; small orbs keep it legible.
    const pen = { colour, alpha, width: Math.max(width * radius, 1 / pixelRatio), dash: dash.map((length) => length * radius) };
    painter.stroke(strand.points.map(place), strand.closed, pen);
  }
}

/** `#rrggbb` at `alpha` as a CSS colour. */
export function withAlpha(colour: string, alpha: number): string {
  const [red, green, blue] = [1, 3, 5].map((at) => parseInt(colour.slice(at, at + 2), 16));
  return `rgba(${red ?? 0}, ${green ?? 0}, ${blue ?? 0}, ${alpha})`;
}

/** A painter over `canvas`'s 2D context, or null where the canvas cannot draw in 2D. */
export function canvasPainter(canvas: HTMLCanvasElement): OrbPainter | null {
  const context = canvas.getContext('2d');
  if (!context) return null;
  return {
    begin(sizeCssPx, pixelRatio) {
      const sizeDevicePx = Math.max(1, Math.round(sizeCssPx * pixelRatio));
      // Setting the size clears the canvas and its state, so it is done only when it changed.
      if (canvas.width !== sizeDevicePx) canvas.width = sizeDevicePx;
      if (canvas.height !== sizeDevicePx) canvas.height = sizeDevicePx;
      context.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
      context.clearRect(0, 0, sizeCssPx, sizeCssPx);
    },
    glow(centre, radius, colour, alpha) {
      if (radius <= 0) return;
      const light = context.createRadialGradient(centre.x, centre.y, 0, centre.x, centre.y, radius);
      light.addColorStop(0, withAlpha(colour, alpha));
      light.addColorStop(1, withAlpha(colour, 0));
      context.globalAlpha = 1;
      context.fillStyle = light;
      context.fillRect(centre.x - radius, centre.y - radius, 2 * radius, 2 * radius);
    },
    stroke(points, closed, pen) {
      const [first, ...rest] = points;
      if (!first) return;
      context.beginPath();
      context.moveTo(first.x, first.y);
      for (const point of rest) context.lineTo(point.x, point.y);
      if (closed) context.closePath();
      context.globalAlpha = pen.alpha;
      context.strokeStyle = pen.colour;
      context.lineWidth = pen.width;
      context.lineCap = 'round';
      context.lineJoin = 'round';
      context.setLineDash([...pen.dash]);
      context.stroke();
    },
  };
}
