/**
 * Offers on the written conversation: the server's cut laid on the answer it kept, which choice was
 * taken, and which offer is still open. The same for the active page's conversation and for the
 * mirror a passive page shows (`../presence/mirror.ts`).
 */
import type { Offer } from '../../../common/conversation/choices';
import type { Line } from '../../../common/conversation/events';

/**
 * `lines` with the answer of `utteranceId` kept as `text` ending in `offer`; the same lines when
 * there is no such answer. An offer already on it keeps what it knows of the taken choice.
 */
export function withOffer(lines: readonly Line[], utteranceId: number, text: string, offer: Offer): readonly Line[] {
  const at = lines.findIndex((line) => line.role === 'assistant' && line.utteranceId === utteranceId);
  const line = lines[at];
  if (line === undefined || line.interrupted === true) return lines;
  const taken = line.offer?.id === offer.id ? (line.offer.taken ?? offer.taken) : offer.taken;
  return lines.map((l, i) => (i === at ? { ...line, text, offer: { ...offer, taken } } : l));
}

/** `lines` with choice `taken` of the offer `offerId` marked taken; the same lines when no line offers it. */
export function withTaken(lines: readonly Line[], offerId: string, taken: number): readonly Line[] {
  const at = lines.findIndex((line) => line.offer?.id === offerId);
  const line = lines[at];
  if (line?.offer === undefined || line.offer.taken === taken || taken < 0 || taken >= line.offer.items.length) return lines;
  const offer = line.offer;
  return lines.map((l, i) => (i === at ? { ...line, offer: { ...offer, taken } } : l));
}

/**
 * The offer that may still be taken: the one the newest line ends in, while none of it is. An
 * older offer the conversation has gone on from is spent, taken or not.
 */
export function openOffer(lines: readonly Line[]): Offer | null {
  const offer = lines.at(-1)?.offer;
  return offer === undefined || offer.taken !== null ? null : offer;
}
