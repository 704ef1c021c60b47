/**
 * The presence hub of one server instance: the presence streams open on it, by person and bot, and
 * the fan-out that reaches them. Whatever changes a person's presence (a ruling, events kept in the
 * window, the active page's live state) is sent on the Postgres channel `confab_presence` in the
 * transaction that made it, so every instance over the database hears it as it commits, and is
 * delivered to this instance's own streams at once, without waiting for the round trip. No other
 * broker: PGlite hears its own NOTIFY in process; on Postgres each instance LISTENs on a connection
 * of its own.
 *
 * Each stream is sent the window's events in order, each once: one that arrives after a gap (a
 * notification lost while the LISTEN connection was down) reads what it missed from the window.
 * Where LISTEN hears nothing (through a transaction pooler, with no `DATABASE_DIRECT_URL`), the hub
 * says so at start and reads the window and the seat for every stream each `PRESENCE_POLL_MS`.
 *
 * A notification carries at most 8000 bytes, and a long line or answer is more: what would not fit
 * goes by reference. Events are named by the `seq` they start from and read from the window; a live
 * state is kept on the seat under a stamp and read from there by the instances that hear it (in the
 * order heard, so a later state never goes out ahead of an earlier one being read).
 */
import { randomUUID } from 'node:crypto';
import type { SSEStreamingApi } from 'hono/streaming';
import { isLiveState } from '../../common/presence/protocol';
import type { LiveState, PageRef, PresenceMessage, Seat, Sequenced } from '../../common/presence/protocol';
import type { Database } from '../db/database';
import { DeafListenError } from '../db/errors';
import { eventsFrom, readLive, readSeat } from '../db/presence';
import type { SeatRow } from '../db/presence';
import { seatOf } from './referee';

/** The Postgres channel presence is fanned out on. */
export const PRESENCE_CHANNEL = 'confab_presence';
/**
 * How often, in ms, a hub that cannot hear the other instances reads what they did: a page on
 * another instance learns of a handover and a line within about this.
 */
const PRESENCE_POLL_MS = 500;

/** How this instance hears the others: at once over LISTEN, by reading every `pollMs`, or only itself (PGlite is one process). */
export type Hearing = { by: 'listen' } | { by: 'polling'; pollMs: number; why: string } | { by: 'itself' };

/** The largest NOTIFY payload Postgres takes is 8000 bytes; past this the events are read from the window instead. */
const PAYLOAD_BYTES_MAX = 7_800;

/** One change to fan out to a person's streams for one bot. */
export interface Fanout {
  /** The instance that made it (it has delivered it to its own streams already). */
  from: string;
  person: string;
  bot: string;
  /** Seats for pages, by page id. */
  told?: { page: string; seat: Seat }[];
  /** Events newly kept in the window, in order. */
  events?: Sequenced[];
  /** Events were kept from this `seq` on, too many to carry: read them from the window. */
  eventsFrom?: number;
  /** The active page's live state, not kept. */
  live?: { from: string; live: LiveState };
  /** A page is claiming to be the active one: the others yield at once, ahead of the ruling. */
  yield?: PageRef;
  /** The live state of the page `from`, too large to carry: kept on the seat under `stamp`. */
  liveKept?: { from: string; stamp: string };
}

/** A fan-out as the channel carries it. */
export interface Notification {
  /** At most `PAYLOAD_BYTES_MAX` bytes whatever the fan-out carries. */
  payload: string;
  /** The live state the payload names by its stamp, to keep on the seat in the same transaction; null when it is carried. */
  keep: { stamp: string; live: NonNullable<Fanout['live']> } | null;
}

/** The fan-out as the channel carries it: the events, then the live state, left out by reference when they would not fit. */
export function notificationOf(fanout: Fanout, stamp: () => string = randomUUID): Notification {
  const fits = (value: Fanout) => {
    const payload = JSON.stringify(value);
    return Buffer.byteLength(payload) <= PAYLOAD_BYTES_MAX ? payload : null;
  };
  const whole = fits(fanout);
  if (whole !== null) return { payload: whole, keep: null };
  const { events, ...rest } = fanout;
  const lean: Fanout = events === undefined || events.length === 0 ? rest : { ...rest, eventsFrom: events[0]?.seq ?? 0 };
  const withoutEvents = fits(lean);
  if (withoutEvents !== null || lean.live === undefined) return { payload: withoutEvents ?? JSON.stringify(lean), keep: null };
  const { live, ...bare } = lean;
  const kept = { stamp: stamp(), live };
  return { payload: JSON.stringify({ ...bare, liveKept: { from: live.from, stamp: kept.stamp } }), keep: kept };
}

function fanoutOf(payload: string): Fanout | undefined {
  try {
    const value = JSON.parse(payload) as Partial<Fanout>;
    return typeof value.from === 'string' && typeof value.person === 'string' && typeof value.bot === 'string' ? (value as Fanout) : undefined;
  } catch {
    return undefined;
  }
}

/** The seat a page holds, as the seat row says. */
export function seatFromRow(row: SeatRow, page: string): Seat {
  return seatOf({ term: row.term, active: row.active, pages: {} }, page);
}

/** One open presence stream. */
export class PresenceStream {
  /** The last window `seq` sent; events at or before it are not sent again. */
  private sentSeq = 0;
  /** The last seat sent (in the hello or after): the same word twice is said once. */
  private sentSeat = '';
  /** Until its hello has gone, what arrives waits here, in order. */
  private waiting: Fanout[] | null = [];
  /** Writes, in order: an SSE write must finish before the next begins. */
  private chain: Promise<void> = Promise.resolve();
  private gone = false;

  constructor(
    readonly person: string,
    readonly bot: string,
    readonly page: string,
    private readonly sse: SSEStreamingApi,
    private readonly db: Database,
  ) {}

  /** Sends the hello and the events owed, then whatever waited meanwhile. */
  opened(hello: PresenceMessage, owed: readonly Sequenced[], latestSeq: number): Promise<void> {
    return this.then(async () => {
      if (hello.type === 'hello') this.sentSeat = JSON.stringify(hello.seat);
      await this.write(hello);
      for (const sequenced of owed) await this.write({ type: 'event', sequenced });
      this.sentSeq = Math.max(latestSeq, owed.at(-1)?.seq ?? 0);
      const waited = this.waiting ?? [];
      this.waiting = null;
      for (const fanout of waited) await this.take(fanout);
    });
  }

  deliver(fanout: Fanout): void {
    if (this.waiting !== null) {
      this.waiting.push(fanout);
      return;
    }
    void this.then(() => this.take(fanout));
  }

  /** Reads from the window what this stream may have missed (the fan-out was interrupted). */
  catchUp(): void {
    if (this.waiting !== null) return;
    void this.then(() => this.sendFrom(this.sentSeq + 1));
  }

  /** Reads the window and the page's seat, for a hub that cannot hear the other instances. */
  poll(): void {
    if (this.waiting !== null) return;
    void this.then(async () => {
      const row = await this.db.asPerson(this.person, (tx) => readSeat(tx, this.person, this.bot));
      await this.take({ from: '', person: this.person, bot: this.bot, told: [{ page: this.page, seat: seatFromRow(row, this.page) }] });
      await this.sendFrom(this.sentSeq + 1);
    });
  }

  /** A keep-alive comment, so proxies and the page can tell a live stream from a dead one. */
  ping(): Promise<void> {
    return this.then(() => this.sse.write(': ping\n\n').then(() => undefined));
  }

  close(): void {
    this.gone = true;
  }

  private then(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (this.gone || this.sse.aborted || this.sse.closed) return;
      await step();
    }).catch(() => {
      // A write to a stream that went away: the stream's own close handling follows.
      this.gone = true;
    });
    return this.chain;
  }

  private async take(fanout: Fanout): Promise<void> {
    if (fanout.yield !== undefined && fanout.yield.page !== this.page) await this.write({ type: 'yield', to: fanout.yield });
    const seat = fanout.told?.find((t) => t.page === this.page)?.seat;
    if (seat !== undefined && JSON.stringify(seat) !== this.sentSeat) {
      this.sentSeat = JSON.stringify(seat);
      await this.write({ type: 'seat', seat });
    }
    if (fanout.eventsFrom !== undefined) await this.sendFrom(Math.min(fanout.eventsFrom, this.sentSeq + 1));
    else if (fanout.events !== undefined && fanout.events.length > 0) {
      const first = fanout.events[0]?.seq ?? 0;
      if (first > this.sentSeq + 1) await this.sendFrom(this.sentSeq + 1);
      else for (const sequenced of fanout.events) await this.send(sequenced);
    }
    if (fanout.live !== undefined && fanout.live.from !== this.page) await this.write({ type: 'live', from: fanout.live.from, live: fanout.live.live });
  }

  private async sendFrom(fromSeq: number): Promise<void> {
    const missed = await this.db.asPerson(this.person, (tx) => eventsFrom(tx, this.person, this.bot, fromSeq));
    for (const sequenced of missed) await this.send(sequenced);
  }

  private async send(sequenced: Sequenced): Promise<void> {
    if (sequenced.seq <= this.sentSeq) return;
    this.sentSeq = sequenced.seq;
    await this.write({ type: 'event', sequenced });
  }

  private async write(message: PresenceMessage): Promise<void> {
    const { type, ...data } = message;
    await this.sse.writeSSE({ event: type, data: JSON.stringify(data) });
  }
}

export class PresenceHub {
  private readonly streams = new Map<string, Set<PresenceStream>>();
  private stopListening: (() => Promise<void>) | null = null;
  private hearing: Hearing = { by: 'itself' };
  /** What was heard, delivered in the order heard: a fan-out whose live state is being read holds back those after it. */
  private heard: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    readonly instance: string,
  ) {}

  /** Listens on the channel (where the database can), or polls where it hears nothing. Every stream catches up after a gap. */
  async start(): Promise<Hearing> {
    if (this.db.listen === undefined) return { by: 'itself' };
    if (this.stopListening !== null) return this.hearing;
    try {
      this.stopListening = await this.db.listen(PRESENCE_CHANNEL, {
        payload: (payload) => {
          const fanout = fanoutOf(payload);
          if (fanout === undefined || fanout.from === this.instance) return;
          this.heard = this.heard.then(async () => {
            this.deliver(await this.withLive(fanout));
          });
        },
        gap: () => {
          for (const stream of this.all()) stream.catchUp();
        },
      });
      this.hearing = { by: 'listen' };
    } catch (error) {
      if (!(error instanceof DeafListenError)) throw error;
      const timer = setInterval(() => {
        for (const stream of this.all()) stream.poll();
      }, PRESENCE_POLL_MS);
      this.stopListening = () => {
        clearInterval(timer);
        return Promise.resolve();
      };
      this.hearing = { by: 'polling', pollMs: PRESENCE_POLL_MS, why: error.message };
    }
    return this.hearing;
  }

  attach(stream: PresenceStream): () => void {
    const key = keyOf(stream.person, stream.bot);
    const set = this.streams.get(key) ?? new Set<PresenceStream>();
    set.add(stream);
    this.streams.set(key, set);
    return () => {
      stream.close();
      set.delete(stream);
      if (set.size === 0) this.streams.delete(key);
    };
  }

  /**
   * A fan-out with its live state read from the seat when it came by reference; without it when a
   * later state has replaced it there (that one's own notification brings it) or it cannot be read.
   */
  private async withLive(fanout: Fanout): Promise<Fanout> {
    const { liveKept, ...rest } = fanout;
    if (liveKept === undefined) return fanout;
    if (!this.streams.has(keyOf(fanout.person, fanout.bot))) return rest;
    // A live state is passing by nature: one that cannot be read is skipped, and the next one comes.
    const live = await this.db.asPerson(fanout.person, (tx) => readLive(tx, fanout.person, fanout.bot, liveKept.stamp)).catch(() => undefined);
    return isLiveState(live) ? { ...rest, live: { from: liveKept.from, live } } : rest;
  }

  /** Hands a change to this instance's streams for its person and bot. */
  deliver(fanout: Fanout): void {
    for (const stream of this.streams.get(keyOf(fanout.person, fanout.bot)) ?? []) stream.deliver(fanout);
  }

  /** Every stream open on this instance. */
  all(): PresenceStream[] {
    return [...this.streams.values()].flatMap((set) => [...set]);
  }

  async close(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
  }
}

const keyOf = (person: string, bot: string) => `${person}\u0000${bot}`;
