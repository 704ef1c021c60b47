/**
 * One page's own view of presence: whether it is the active page, and where the active page is
 * when it is not. It hears the referee (the server's seats, each with its `term`) and two faster signals from
 * its own browser: its Web Lock was stolen (another tab became the active page), or the person made a
 * gesture here that makes it the active page. What the page does about a change — stop listening and speaking, or
 * start — is the app's; this decides only what the page is.
 *
 * A local change runs ahead of the referee, so a seat that arrives afterwards with a term no newer
 * than the one the page knew when it changed is a late word, and is not obeyed: after a claim, the
 * server's answer to it (a newer term) is the next word that counts.
 */
import type { PageRef, Role, Seat } from '../../../common/presence/protocol';

/** Where the active page is, from this page: here, in another tab of this browser, or on another device. */
type ActiveWhere = 'here' | 'tab' | 'device' | null;

export interface PageSeat {
  /** Unknown until the referee (or the lock) has said. */
  role: Role | 'unknown';
  /** The newest term this page has obeyed. */
  term: number;
  /** After a local change: seats up to this term are late words. Null when none is pending. */
  aheadOf: number | null;
  where: ActiveWhere;
}

export type SeatEvent =
  /** The referee's word (the stream's hello or a seat message, or the answer to a claim). */
  | { type: 'told'; seat: Seat }
  /** This browser's active lock was stolen: another tab became the active page. */
  | { type: 'stolen' }
  /** The server says `to` is claiming to be the active page (its seats follow). */
  | { type: 'yielded'; to: PageRef }
  /** The person's gesture here made this the active page. */
  | { type: 'claimed' }
  /** The referee cannot be reached and this page holds the browser's lock: it speaks for itself. */
  | { type: 'alone' };

export const UNSEATED: PageSeat = Object.freeze({ role: 'unknown', term: 0, aheadOf: null, where: null });

function whereOf(active: PageRef | null, me: PageRef): ActiveWhere {
  if (active === null) return null;
  if (active.page === me.page) return 'here';
  return active.device === me.device ? 'tab' : 'device';
}

/** The seat after `event`, for the page `me`. */
export function seatAfter(seat: PageSeat, event: SeatEvent, me: PageRef): PageSeat {
  switch (event.type) {
    case 'told': {
      const { seat: told } = event;
      if (seat.aheadOf !== null ? told.term <= seat.aheadOf : told.term < seat.term) return seat;
      return { role: told.role, term: told.term, aheadOf: null, where: whereOf(told.active, me) };
    }
    case 'stolen':
      return { ...seat, role: 'passive', aheadOf: Math.max(seat.term, seat.aheadOf ?? 0), where: 'tab' };
    case 'yielded':
      // This page's own claim, as the server passes it on, changes nothing here.
      if (event.to.page === me.page) return seat;
      return { ...seat, role: 'passive', aheadOf: Math.max(seat.term, seat.aheadOf ?? 0), where: whereOf(event.to, me) };
    case 'claimed':
      return { ...seat, role: 'active', aheadOf: Math.max(seat.term, seat.aheadOf ?? 0), where: 'here' };
    case 'alone':
      return seat.role === 'unknown' ? { ...seat, role: 'active', where: 'here' } : seat;
  }
}

/** Whether the page may listen and speak now. */
export const isActive = (seat: PageSeat): boolean => seat.role === 'active';
