/**
 * This page's seat — active, passive, free or not yet known — as the referee, this browser's Web
 * Lock and the person's gestures move it (the pure rules are src/core/presence/seat.ts), and the
 * person's lock and channel in this browser, opened once the server's hello names them.
 */
import type { PageRef } from '../../../common/presence/protocol';
import { isActive, seatAfter, UNSEATED } from '../../core/presence/seat';
import type { PageSeat, SeatEvent } from '../../core/presence/seat';
import type { ChannelMessage, PresenceChannel } from '../../platform/presenceChannel';
import type { PresenceClient } from '../../platform/presenceClient';
import type { ActiveLock } from '../../platform/activeLock';
import type { PresenceListeners, PresencePorts } from './ports';

export interface SeatKeeperPorts extends Pick<PresencePorts, 'lock' | 'channel'> {
  bot: string;
  me: PageRef;
  client: Pick<PresenceClient, 'claim'>;
  listeners: Pick<PresenceListeners, 'onSeat' | 'onActive'>;
  /** The referee (or the wait for it) has said where the active page is. */
  onKnown: () => void;
  /** Another tab's message, heard while this page is passive. */
  onTab: (message: ChannelMessage) => void;
  disposed: () => boolean;
}

export interface SeatKeeper {
  seat: () => PageSeat;
  isActive: () => boolean;
  apply: (event: SeatEvent) => void;
  /** Claims the seat from the referee; sent again when the stream opens again while unanswered. */
  claim: () => void;
  /** Whether a claim is still unanswered, or the page went active ahead of the referee. */
  owesClaim: () => boolean;
  /** The person's lock and channel in this browser, named by their tag, opened once. */
  join: (you: string) => void;
  channel: () => PresenceChannel | null;
  /** The person's gesture here: this page becomes the active one. */
  takeOver: () => void;
  stop: () => void;
}

export function seatKeeper(ports: SeatKeeperPorts): SeatKeeper {
  const { bot, me, client, listeners, disposed } = ports;
  let seat: PageSeat = UNSEATED;
  let lock: ActiveLock | null = null;
  let channel: PresenceChannel | null = null;
  let person: string | null = null;
  let claimPending = false;
  let unsubscribeStolen: (() => void) | undefined;
  let unsubscribeChannel: (() => void) | undefined;

  function claim(): void {
    claimPending = true;
    client.claim(bot, me).then(
      (told) => {
        claimPending = false;
        apply({ type: 'told', seat: told });
      },
      () => {
        // Unreachable: the page stays the active one it became, and claims again when the stream is back.
      },
    );
  }

  function apply(event: SeatEvent): void {
    if (disposed()) return;
    const before = seat;
    seat = seatAfter(seat, event, me);
    if (seat === before) return;
    const wasActive = isActive(before);
    const nowActive = isActive(seat);
    if (nowActive && lock !== null && !lock.owned) void lock.take({ steal: true });
    if (!nowActive && lock?.owned === true) lock.release();
    listeners.onSeat(seat);
    if (nowActive !== wasActive || before.role === 'unknown') listeners.onActive(nowActive);
    if (seat.role !== 'unknown') ports.onKnown();
  }

  return {
    seat: () => seat,
    isActive: () => isActive(seat),
    apply,
    claim,
    owesClaim: () => claimPending || (seat.role === 'active' && seat.aheadOf !== null),
    join(you) {
      if (person !== null) return;
      person = you;
      lock = ports.lock(you);
      channel = ports.channel(you);
      unsubscribeStolen = lock?.onStolen(() => {
        apply({ type: 'stolen' });
      });
      unsubscribeChannel = channel?.on((message) => {
        if (disposed() || message.from === me.page || isActive(seat)) return;
        ports.onTab(message);
      });
    },
    channel: () => channel,
    takeOver() {
      if (disposed() || isActive(seat)) return;
      // The other pages are told first (the lock stolen in this browser, the claim to the server),
      // then this page starts its conversation: the old page goes quiet meanwhile.
      if (lock !== null) void lock.take({ steal: true });
      claim();
      apply({ type: 'claimed' });
    },
    stop() {
      unsubscribeStolen?.();
      unsubscribeChannel?.();
      lock?.release();
      channel?.close();
    },
  };
}
