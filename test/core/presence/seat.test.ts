import { describe, expect, it } from 'vitest';
import { isActive, seatAfter, UNSEATED } from '../../../src/core/presence/seat';
import type { PageSeat, SeatEvent } from '../../../src/core/presence/seat';
import type { PageRef, Seat } from '../../../common/presence/protocol';

const me: PageRef = { page: 'this-page-01', device: 'laptop-0001' };
const otherTab: PageRef = { page: 'other-tab-02', device: 'laptop-0001' };
const phone: PageRef = { page: 'phone-page-3', device: 'phone-00003' };

const told = (role: Seat['role'], term: number, active: PageRef | null): SeatEvent => ({ type: 'told', seat: { role, term, active } });
const run = (events: SeatEvent[], from: PageSeat = UNSEATED) => events.reduce((seat, event) => seatAfter(seat, event, me), from);

describe("a page's own seat", () => {
  it('is unknown until the referee says, then is what it says', () => {
    expect(UNSEATED.role).toBe('unknown');
    expect(isActive(UNSEATED)).toBe(false);
    const seat = run([told('active', 1, me)]);
    expect(seat).toEqual({ role: 'active', term: 1, aheadOf: null, where: 'here' });
    expect(isActive(seat)).toBe(true);
  });

  it('says where the active page is: another tab of this browser, or another device', () => {
    expect(run([told('passive', 3, otherTab)]).where).toBe('tab');
    expect(run([told('passive', 3, phone)]).where).toBe('device');
    expect(run([told('free', 4, null)])).toMatchObject({ role: 'free', where: null });
  });

  it('goes passive at once when its lock is stolen, and obeys the referee only once it says something newer', () => {
    let seat = run([told('active', 5, me), { type: 'stolen' }]);
    expect(seat).toMatchObject({ role: 'passive', where: 'tab', aheadOf: 5 });
    // A late word from before the steal is not obeyed.
    seat = seatAfter(seat, told('active', 5, me), me);
    expect(seat.role).toBe('passive');
    seat = seatAfter(seat, told('passive', 6, otherTab), me);
    expect(seat).toEqual({ role: 'passive', term: 6, aheadOf: null, where: 'tab' });
  });

  it('becomes the active page at once on a gesture, ignoring the seats sent before its claim arrived', () => {
    let seat = run([told('passive', 2, phone), { type: 'claimed' }]);
    expect(seat).toMatchObject({ role: 'active', where: 'here', aheadOf: 2 });
    seat = seatAfter(seat, told('passive', 2, phone), me);
    expect(seat.role).toBe('active');
    seat = seatAfter(seat, told('active', 3, me), me);
    expect(seat).toEqual({ role: 'active', term: 3, aheadOf: null, where: 'here' });
  });

  it('obeys a claim elsewhere that came after its own', () => {
    const seat = run([told('passive', 2, phone), { type: 'claimed' }, told('passive', 4, phone)]);
    expect(seat).toMatchObject({ role: 'passive', term: 4, where: 'device' });
  });

  it('never goes back to an older term', () => {
    const seat = run([told('passive', 7, phone), told('active', 6, me)]);
    expect(seat).toMatchObject({ role: 'passive', term: 7 });
  });

  it('speaks for itself when the referee cannot be reached, only if nothing was said yet', () => {
    expect(run([{ type: 'alone' }])).toMatchObject({ role: 'active', where: 'here' });
    expect(run([told('passive', 1, phone), { type: 'alone' }]).role).toBe('passive');
  });

  it('yields at once when the server says another page is claiming to be the active one, and ignores its own claim passed on', () => {
    let seat = run([told('active', 5, me), { type: 'yielded', to: me }]);
    expect(seat).toMatchObject({ role: 'active', term: 5 });
    seat = seatAfter(seat, { type: 'yielded', to: phone }, me);
    expect(seat).toMatchObject({ role: 'passive', where: 'device', aheadOf: 5 });
    // The ruling that follows is newer; the seat from before the claim is not.
    expect(seatAfter(seat, told('active', 5, me), me).role).toBe('passive');
    expect(seatAfter(seat, told('passive', 6, phone), me)).toEqual({ role: 'passive', term: 6, aheadOf: null, where: 'device' });
    expect(run([told('free', 2, null), { type: 'yielded', to: otherTab }])).toMatchObject({ role: 'passive', where: 'tab' });
  });
});
