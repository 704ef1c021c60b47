/**
 * What the orb is showing about the conversation. The shape follows the SOUND (see `orbModel.ts`);
 * the state decides the colour, the line pattern, the resting speed and the sentence read out to
 * assistive technology, so that a person who cannot see motion, or has asked for none, can still
 * tell the states apart.
 */
import type { PageSay } from '../../../common/pageWords';

/**
 * - `connecting`: the voice engine or the grant is still loading; nothing can be said yet.
 * - `listening`: the turn is the person's and the microphone is open.
 * - `hearing`: the person is speaking (the recogniser has words).
 * - `thinking`: the question is asked and no answer has arrived.
 * - `speaking`: the assistant's answer is being spoken.
 * - `muted`: the microphone is off (muted, refused or missing); typing is the way in.
 * - `error`: something failed that the person should know about.
 */
export type OrbState = 'connecting' | 'listening' | 'hearing' | 'thinking' | 'speaking' | 'muted' | 'error';

/** Every state, in the order a conversation usually meets them. */
export const ORB_STATES: readonly OrbState[] = Object.freeze([
  'connecting',
  'listening',
  'hearing',
  'thinking',
  'speaking',
  'muted',
  'error',
] as const satisfies readonly OrbState[]);

/** The short sentence announced to assistive technology when the orb shows `state`, in the person's language. */
export function orbSentence(state: OrbState, say: PageSay): string {
  return say(`page-orb.${state}`);
}
