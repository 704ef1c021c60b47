/**
 * The presence referee: which of a person's pages for one bot is the active one. A pure function
 * of what happened (a page's stream opened or closed, a page claimed to be active, a page was seen) and
 * the time; the server keeps its state in Postgres and applies it in one transaction per event, so
 * several server instances agree. What it decides:
 *
 * - a page that opens while no page is active becomes the active one (one page alone just works);
 * - a page that opens while another is active is passive; the active page, reconnecting, stays active;
 * - a claim (the person's gesture on a page: "Use this one", holding to talk, typing) always wins,
 *   and every page is told; a claim by the page that is already active changes nothing;
 * - the active page closing (its last stream ending) leaves no page active: the others are told
 *   `free`, and the person's first gesture on one of them claims it;
 * - a page not seen for `staleMs` (a laptop asleep, a server gone) is forgotten, and if it was the
 *   active page no page is active. A stale page that comes back is told where things stand.
 *
 * `term` counts changes of the active page; every seat the referee hands out carries it, so a page
 * can tell a late word from a new one.
 */
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';
import type { PageRef, Seat } from '../../common/presence/protocol';

export interface RefereeOptions {
  /** How long a page may go unseen before it is forgotten, in ms. Default 45 000 (three missed heartbeats). */
  staleMs: number;
}

export const REFEREE_DEFAULTS: Readonly<RefereeOptions> = Object.freeze({ staleMs: 45_000 });

const LIMITS: Limits<RefereeOptions> = { staleMs: { over: 0 } };

/** A page the referee knows: its device, how many streams it has open, and when it was last seen. */
export interface KnownPage {
  device: string;
  streams: number;
  seenAtMs: number;
}

export interface RefereeState {
  term: number;
  active: PageRef | null;
  pages: Readonly<Record<string, KnownPage>>;
}

export type RefereeEvent =
  /** A stream of the page opened (a page may have two for a moment while it reconnects). */
  | { type: 'opened'; page: PageRef; atMs: number }
  /** A stream of the page ended. */
  | { type: 'closed'; page: string; atMs: number }
  /** The person's gesture on the page: it becomes the active page. */
  | { type: 'claimed'; page: PageRef; atMs: number }
  /**
   * The page's stream is still open (a heartbeat). A page forgotten meanwhile is known again, as
   * though its stream had just opened.
   */
  | { type: 'seen'; page: PageRef; atMs: number }
  /** Time passed: stale pages are forgotten. */
  | { type: 'tick'; atMs: number };

/** What the referee decided: the new state, what each page is told, and whether the active page moved. */
export interface Ruling {
  state: RefereeState;
  /** The seats to send, one per page told. */
  told: { page: string; seat: Seat }[];
  /** The active page changed (or none is active now): `term` moved on. */
  changed: boolean;
}

export const NOBODY: RefereeState = Object.freeze({ term: 0, active: null, pages: Object.freeze({}) });

export function seatOf(state: RefereeState, page: string): Seat {
  const role = state.active === null ? 'free' : state.active.page === page ? 'active' : 'passive';
  return { role, term: state.term, active: state.active };
}

function forgetStale(state: RefereeState, atMs: number, staleMs: number): { state: RefereeState; changed: boolean } {
  const pages: Record<string, KnownPage> = {};
  for (const [page, known] of Object.entries(state.pages)) if (atMs - known.seenAtMs <= staleMs) pages[page] = known;
  const activeGone = state.active !== null && pages[state.active.page] === undefined;
  if (!activeGone) return { state: { ...state, pages }, changed: false };
  return { state: { term: state.term + 1, active: null, pages }, changed: true };
}

function everyone(state: RefereeState, also?: string): { page: string; seat: Seat }[] {
  const pages = new Set(Object.keys(state.pages));
  if (also !== undefined) pages.add(also);
  return [...pages].sort().map((page) => ({ page, seat: seatOf(state, page) }));
}

export function referee(before: RefereeState, event: RefereeEvent, options: Partial<RefereeOptions> = {}): Ruling {
  const { staleMs } = resolveOptions('referee', REFEREE_DEFAULTS, options, LIMITS);
  // A page that is the subject of this event is alive now, whatever its last heartbeat said.
  const subject = event.type === 'tick' ? undefined : typeof event.page === 'string' ? event.page : event.page.page;
  const known = subject === undefined ? undefined : before.pages[subject];
  const seen = subject !== undefined && known !== undefined ? { ...before, pages: { ...before.pages, [subject]: { ...known, seenAtMs: event.atMs } } } : before;
  const fresh = forgetStale(seen, event.atMs, staleMs);
  const state = fresh.state;
  const tellAll = (next: RefereeState, also?: string): Ruling => ({ state: next, told: everyone(next, also), changed: true });
  const unchanged = (next: RefereeState, told: { page: string; seat: Seat }[]): Ruling => (fresh.changed ? tellAll(next) : { state: next, told, changed: false });

  function opened(current: RefereeState, page: PageRef, atMs: number, newStream: boolean): Ruling {
    const known = current.pages[page.page];
    const pages = { ...current.pages, [page.page]: { device: page.device, streams: (known?.streams ?? 0) + (newStream || known === undefined ? 1 : 0), seenAtMs: atMs } };
    if (current.active === null) return tellAll({ term: current.term + 1, active: page, pages });
    const next = { ...current, pages };
    return unchanged(next, [{ page: page.page, seat: seatOf(next, page.page) }]);
  }

  switch (event.type) {
    case 'seen':
      // A page forgotten meanwhile has a stream open after all: it is known again, as on opening.
      return state.pages[event.page.page] === undefined ? opened(state, event.page, event.atMs, false) : unchanged(state, []);
    case 'opened':
      return opened(state, event.page, event.atMs, true);
    case 'closed': {
      const known = state.pages[event.page];
      if (known === undefined) return unchanged(state, []);
      const rest = Object.fromEntries(Object.entries(state.pages).filter(([page]) => page !== event.page || known.streams > 1));
      if (known.streams > 1) rest[event.page] = { ...known, streams: known.streams - 1 };
      if (known.streams > 1 || state.active?.page !== event.page) return unchanged({ ...state, pages: rest }, []);
      return tellAll({ term: state.term + 1, active: null, pages: rest });
    }
    case 'claimed': {
      const known = state.pages[event.page.page];
      const pages = { ...state.pages, [event.page.page]: { device: event.page.device, streams: known?.streams ?? 0, seenAtMs: event.atMs } };
      // The active page claims again (a second tap, a retried request): nothing moves.
      if (state.active?.page === event.page.page) {
        const next = { ...state, pages };
        return unchanged(next, [{ page: event.page.page, seat: seatOf(next, event.page.page) }]);
      }
      return tellAll({ term: state.term + 1, active: event.page, pages });
    }
    case 'tick':
      return unchanged(state, []);
  }
}
