import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { NOBODY, referee } from '../../../server/presence/referee';
import type { RefereeEvent, RefereeState, Ruling } from '../../../server/presence/referee';
import type { PageRef } from '../../../common/presence/protocol';

const laptopTab1: PageRef = { page: 'tab-one-0001', device: 'laptop-0001' };
const laptopTab2: PageRef = { page: 'tab-two-0002', device: 'laptop-0001' };
const phone: PageRef = { page: 'phone-page-3', device: 'phone-00003' };

/** Runs events through the referee on a simulated clock, keeping every ruling. */
function play(events: RefereeEvent[], start: RefereeState = NOBODY, staleMs = 45_000): { state: RefereeState; rulings: Ruling[] } {
  const rulings: Ruling[] = [];
  let state = start;
  for (const event of events) {
    const ruling = referee(state, event, { staleMs });
    rulings.push(ruling);
    state = ruling.state;
  }
  return { state, rulings };
}

const roles = (ruling: Ruling | undefined) => Object.fromEntries((ruling?.told ?? []).map((t) => [t.page, t.seat.role]));

describe('the presence referee', () => {
  it('makes the first page that opens the active one, and makes the second passive', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: laptopTab2, atMs: 10 },
    ]);
    expect(state.active).toEqual(laptopTab1);
    expect(state.term).toBe(1);
    expect(rulings[0]?.changed).toBe(true);
    expect(roles(rulings[0])).toEqual({ [laptopTab1.page]: 'active' });
    expect(rulings[1]?.changed).toBe(false);
    expect(rulings[1]?.told).toEqual([{ page: laptopTab2.page, seat: { role: 'passive', term: 1, active: laptopTab1 } }]);
  });

  it('hands the active page over on a claim and tells every page, the old one first among them', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 10 },
      { type: 'claimed', page: phone, atMs: 20 },
    ]);
    expect(state.active).toEqual(phone);
    expect(state.term).toBe(2);
    expect(rulings[2]?.changed).toBe(true);
    expect(roles(rulings[2])).toEqual({ [laptopTab1.page]: 'passive', [phone.page]: 'active' });
    expect(rulings[2]?.told.every((t) => t.seat.term === 2)).toBe(true);
  });

  it('changes nothing when the active page claims again (a double tap, a retried request)', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 0 },
      { type: 'claimed', page: phone, atMs: 20 },
      { type: 'claimed', page: phone, atMs: 25 },
    ]);
    expect(state.term).toBe(2);
    expect(rulings[3]?.changed).toBe(false);
    expect(rulings[3]?.told).toEqual([{ page: phone.page, seat: { role: 'active', term: 2, active: phone } }]);
  });

  it('leaves no page active when the active page closes, and the next claim makes one', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: laptopTab2, atMs: 0 },
      { type: 'closed', page: laptopTab1.page, atMs: 100 },
      { type: 'claimed', page: laptopTab2, atMs: 5_000 },
    ]);
    expect(rulings[2]?.changed).toBe(true);
    expect(rulings[2]?.told).toEqual([{ page: laptopTab2.page, seat: { role: 'free', term: 2, active: null } }]);
    expect(state.active).toEqual(laptopTab2);
    expect(state.term).toBe(3);
  });

  it('lets a passive page close without moving the active page', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: laptopTab2, atMs: 0 },
      { type: 'closed', page: laptopTab2.page, atMs: 100 },
    ]);
    expect(rulings[2]).toMatchObject({ changed: false, told: [] });
    expect(state.active).toEqual(laptopTab1);
    expect(Object.keys(state.pages)).toEqual([laptopTab1.page]);
  });

  it('keeps a page that reconnects active before its old stream is noticed closing', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 0 },
      // The network dropped: the new stream opens, then the server notices the old one ended.
      { type: 'opened', page: laptopTab1, atMs: 3_000 },
      { type: 'closed', page: laptopTab1.page, atMs: 3_500 },
    ]);
    expect(rulings[2]?.told).toEqual([{ page: laptopTab1.page, seat: { role: 'active', term: 1, active: laptopTab1 } }]);
    expect(rulings[3]?.changed).toBe(false);
    expect(state.active).toEqual(laptopTab1);
    expect(state.pages[laptopTab1.page]?.streams).toBe(1);
  });

  it('tells a page that comes back after it stopped being active that it is passive, with the newer term', () => {
    const { rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 0 },
      { type: 'closed', page: laptopTab1.page, atMs: 1_000 },
      { type: 'claimed', page: phone, atMs: 2_000 },
      { type: 'opened', page: laptopTab1, atMs: 30_000 },
    ]);
    expect(rulings[4]?.told).toEqual([{ page: laptopTab1.page, seat: { role: 'passive', term: 3, active: phone } }]);
  });

  it('forgets a page unseen for longer than staleMs, leaving no page active if it was the active one', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 0 },
      { type: 'seen', page: phone, atMs: 15_000 },
      { type: 'seen', page: phone, atMs: 30_000 },
      { type: 'tick', atMs: 44_000 },
      { type: 'seen', page: phone, atMs: 45_000 },
      { type: 'tick', atMs: 46_000 },
    ]);
    expect(rulings[4]?.changed).toBe(false);
    expect(rulings[6]?.changed).toBe(true);
    expect(rulings[6]?.told).toEqual([{ page: phone.page, seat: { role: 'free', term: 2, active: null } }]);
    expect(state.active).toBeNull();
    expect(Object.keys(state.pages)).toEqual([phone.page]);
  });

  it('takes back a stale page whose heartbeat arrives late: a page with a stream open is known again', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'tick', atMs: 60_000 },
      { type: 'seen', page: laptopTab1, atMs: 61_000 },
    ]);
    expect(rulings[1]?.state.active).toBeNull();
    // No page became active meanwhile, so the page that was active is again.
    expect(rulings[2]?.told).toEqual([{ page: laptopTab1.page, seat: { role: 'active', term: 3, active: laptopTab1 } }]);
    expect(state.pages[laptopTab1.page]?.streams).toBe(1);
  });

  it('honours a claim from a stale page that wakes with a gesture, and tells the page that was active', () => {
    const { state, rulings } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 0 },
      { type: 'claimed', page: phone, atMs: 1_000 },
      // The laptop slept through its heartbeats; the phone's kept coming.
      { type: 'seen', page: phone, atMs: 40_000 },
      { type: 'seen', page: phone, atMs: 80_000 },
      { type: 'claimed', page: laptopTab1, atMs: 90_000 },
    ]);
    expect(state.active).toEqual(laptopTab1);
    expect(roles(rulings[5])).toEqual({ [laptopTab1.page]: 'active', [phone.page]: 'passive' });
  });

  it('does not let the active page go for a stale page when the active page is seen', () => {
    const { state } = play([
      { type: 'opened', page: laptopTab1, atMs: 0 },
      { type: 'opened', page: phone, atMs: 0 },
      { type: 'seen', page: laptopTab1, atMs: 40_000 },
      { type: 'tick', atMs: 50_000 },
    ]);
    expect(state.active).toEqual(laptopTab1);
    expect(Object.keys(state.pages)).toEqual([laptopTab1.page]);
  });

  it('ignores the closing of a stream it never knew', () => {
    const ruling = referee(NOBODY, { type: 'closed', page: 'unknown-page', atMs: 0 });
    expect(ruling).toEqual({ state: NOBODY, told: [], changed: false });
  });

  it('refuses a staleMs that is no time at all', () => {
    expect(() => referee(NOBODY, { type: 'tick', atMs: 0 }, { staleMs: 0 })).toThrow(OptionError);
    expect(() => referee(NOBODY, { type: 'tick', atMs: 0 }, { staleMs: 0 })).toThrow('referee.staleMs is 0; it must be a number over 0.');
  });
});
