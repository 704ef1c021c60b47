/**
 * How each state looks. States must stay apart with no movement at all (reduced motion paints one
 * still picture) and for people who do not see every colour, so each differs in at least two of:
 * colour, line pattern (solid, dotted, dashed, dash-dot), line weight, opacity and size. Thinking
 * and connecting, the two waits, differ in all of colour, pattern and size.
 */
import type { OrbState } from './orbState';

/** The appearance of the orb in one state. Lengths are shares of the orb's radius. */
export interface OrbLook {
  /** The strands' colour, `#rrggbb`, chosen to stand at least 3:1 against the page's `#0b0d12`. */
  readonly colour: string;
  /** The line pattern as alternating dash and gap lengths; empty for a solid line. */
  readonly dash: readonly number[];
  /** The strands' width. */
  readonly lineWidth: number;
  /** The strands' opacity, 0..1, before every other strand is set back for depth. */
  readonly opacity: number;
  /** The shape's size relative to the full orb, 0..1. */
  readonly scale: number;
}

/** Every state's look; see the module comment for why each differs from the rest. */
export const ORB_LOOKS: Readonly<Record<OrbState, OrbLook>> = Object.freeze({
  // A slate-grey ring of dots, gathered small: the engine or grant is on its way.
  connecting: { colour: '#8f9bb3', dash: [0.004, 0.045], lineWidth: 0.02, opacity: 0.9, scale: 0.8 },
  listening: { colour: '#7cc4ff', dash: [], lineWidth: 0.012, opacity: 0.95, scale: 1 },
  // Leaning in a little while the person speaks; the assistant speaking fills the orb.
  hearing: { colour: '#5fe0c0', dash: [], lineWidth: 0.016, opacity: 1, scale: 0.95 },
  // Violet long dashes at nearly full size: an answer is being made.
  thinking: { colour: '#b69cff', dash: [0.11, 0.06], lineWidth: 0.014, opacity: 0.95, scale: 0.92 },
  speaking: { colour: '#ffc56b', dash: [], lineWidth: 0.02, opacity: 1, scale: 1 },
  muted: { colour: '#7d869a', dash: [], lineWidth: 0.01, opacity: 0.6, scale: 0.86 },
  error: { colour: '#ff7b7b', dash: [0.12, 0.05, 0.012, 0.05], lineWidth: 0.014, opacity: 0.95, scale: 0.86 },
});

/** How `state` looks. */
export function orbLook(state: OrbState): OrbLook {
  return ORB_LOOKS[state];
}
