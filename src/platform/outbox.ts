/**
 * The outbox: every line is kept on this device first and sent after, in the order said, so an
 * unreachable server, a reload or a closed tab loses nothing. A conversation started offline waits
 * here too, under a local id its lines name, until the server gives it its own (kept on the device,
 * so a reload mid-way carries on); a line's `clientId` makes a repeated send keep one line.
 */
import { resolveOptions } from '../../common/options';
import type { Limits, Relation } from '../../common/options';
import { failureOf } from './http';
import { localDb } from './localDb';
import type { LocalDb } from './localDb';
import type { OutboxLine, OutboxRecord, ThreadLink } from './localSchema';
import { newId } from './newId';
import { openShelf, OutboxStorageError } from './outboxShelf';
import type { Shelf } from './outboxShelf';
import { sayWord } from './words';

// The line an outbox takes, and the error its storage fails with, are part of what it offers.
export type { OutboxLine } from './localSchema';
export { OutboxStorageError } from './outboxShelf';

/**
 * The server's threads and lines routes, as the outbox needs them. A failure should carry the
 * HTTP `status` it was answered with (none when the server was not reached) so `isRetryable` can
 * tell waiting from refusal.
 */
export interface OutboxApi {
  /** `POST /api/threads {bot}`: creates a conversation and answers its id. */
  createThread(bot: string): Promise<{ id: string }>;
  /** `POST /api/threads/:id/lines`: keeps one line; a repeated `clientId` answers the line already kept. */
  addLine(serverThreadId: string, line: OutboxLine): Promise<unknown>;
}

/** Something the server will never accept, dropped from the outbox and reported once. */
export type Refusal =
  | { kind: 'thread'; localThreadId: string; bot: string; reason: string; error: unknown }
  | { kind: 'line'; localThreadId: string; line: OutboxLine; reason: string; error: unknown };

/** Starts a timer and cancels one; the handle is whatever `setTimeout` gave back. */
export interface OutboxTimer {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How an outbox is made; only `api` is required. */
export interface OutboxOptions {
  /** The server's threads and lines routes. */
  api: OutboxApi;
  /**
   * Opens the database; default the page's shared `confab` connection. When it cannot be opened
   * (private browsing) the outbox keeps what waits in memory for as long as the page is open, and
   * says so with `durable: false`.
   */
  db?: () => Promise<LocalDb>;
  /** Whether a failed send may succeed later (kept and retried) or never will (dropped, reported). Default `isRetryable`. */
  retryable?: (error: unknown) => boolean;
  /** The clock retries wait on. Default the global `setTimeout`. */
  timer?: OutboxTimer;
  /** Calls `listener` whenever the network comes back; answers a way to stop. Default the window's `online` event. */
  onOnline?: (listener: () => void) => () => void;
  /**
   * Runs one flush so that no other tab flushes the same database at the same time (two tabs
   * would both create a waiting thread). Default a Web Lock where the browser has them.
   */
  exclusive?: <T>(run: () => Promise<T>) => Promise<T>;
  /** Makes a local thread id. Default `newId` (which works where the page is not a secure context). */
  newId?: () => string;
  /** Wait before the first retry, in milliseconds; each failed retry doubles it. Default 1,000. */
  retryFirstMs?: number;
  /** Longest wait between retries, in milliseconds. Default 60,000. */
  retryMaxMs?: number;
}

/** How an outbox waits between retries; each is explained on its field in `OutboxOptions`. */
type OutboxRetry = Required<Pick<OutboxOptions, 'retryFirstMs' | 'retryMaxMs'>>;

/** The retry timings when none are given. */
const OUTBOX_DEFAULTS: Readonly<OutboxRetry> = Object.freeze({ retryFirstMs: 1_000, retryMaxMs: 60_000 });

const RETRY_LIMITS: Limits<OutboxRetry> = { retryFirstMs: { over: 0 }, retryMaxMs: { over: 0 } };
const RETRY_RELATIONS: readonly Relation<OutboxRetry>[] = [{ option: 'retryMaxMs', is: 'at least', than: 'retryFirstMs' }];

/** The page's side of keeping lines: everything said is kept here first, then sent in order. */
export interface Outbox {
  /** Whether what waits survives a reload; false where the device would not keep it (private browsing). */
  readonly durable: boolean;
  /** Queues the creation of a conversation with `bot` (a slug) and answers its local id once kept. */
  startThread(bot: string): Promise<string>;
  /** Takes a conversation the server already has (opened from the drawer); answers the local id its lines name. */
  adoptThread(serverThreadId: string): Promise<string>;
  /** Keeps `line` on this device (resolved once kept), then tries to send it. */
  addLine(localThreadId: string, line: OutboxLine): Promise<void>;
  /** Sends everything waiting, in order, until done or the server cannot be reached. Concurrent calls share the work. */
  flush(): Promise<void>;
  /** Lines waiting to be saved (thread creations are not counted: nobody said them). */
  pending(): number;
  /** The server's id for a local thread, once it exists there. */
  serverThreadId(localThreadId: string): Promise<string | undefined>;
  /** Calls `listener` with the new count whenever `pending()` changes; answers a way to stop. */
  onPending(listener: (count: number) => void): () => void;
  /** Calls `listener` for each thing the server refused and the outbox dropped; answers a way to stop. */
  onRefused(listener: (refusal: Refusal) => void): () => void;
  /** Calls `listener` when sending in the background failed on this device's storage (it is retried); answers a way to stop. */
  onFailed(listener: (error: OutboxStorageError) => void): () => void;
  /** Stops retrying and listening for the network; what waits stays kept for the next outbox. */
  close(): void;
}

/** A line or thread that can never be saved: blank, without an id, or in a conversation never started here. */
export class OutboxLineError extends Error {
  override readonly name = 'OutboxLineError';
}

/**
 * Whether a send that failed with `error` may succeed later: not reached at all (no `status`), a
 * timeout (408), too many requests (429) or the server's own failure (5xx). Any other answer in
 * 4xx is a refusal that no retry will change — a conversation forgotten on another device, say.
 */
export function isRetryable(error: unknown): boolean {
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status !== 'number') return true;
  return status < 400 || failureOf(status) === 'unreachable';
}

/** The wait before retry number `attempt` (0 first), doubling from `firstMs` up to `maxMs`. */
export function retryDelayMs(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** attempt);
}

/**
 * Opens the outbox over this device's storage, then sends whatever an earlier page left waiting.
 * Throws `OptionError` for retry timings that are not positive with `retryMaxMs ≥ retryFirstMs`.
 */
export async function createOutbox(options: OutboxOptions): Promise<Outbox> {
  const { retryFirstMs, retryMaxMs } = resolveOptions('outbox', OUTBOX_DEFAULTS, options, RETRY_LIMITS, RETRY_RELATIONS);
  const shelf = await openShelf(options.db ?? localDb);
  const outbox = new QueuedOutbox(shelf, {
    api: options.api,
    retryable: options.retryable ?? isRetryable,
    timer: options.timer ?? globalTimer,
    exclusive: options.exclusive ?? webLock,
    newId: options.newId ?? newId,
    retryFirstMs,
    retryMaxMs,
  });
  await outbox.start(options.onOnline ?? windowOnline);
  return outbox;
}

interface Dependencies {
  api: OutboxApi;
  retryable: (error: unknown) => boolean;
  timer: OutboxTimer;
  exclusive: <T>(run: () => Promise<T>) => Promise<T>;
  newId: () => string;
  retryFirstMs: number;
  retryMaxMs: number;
}

/** What sending one record came to. */
type Sent = { kind: 'sent'; link?: ThreadLink } | { kind: 'waiting' } | { kind: 'refused'; refusal: Refusal };

class QueuedOutbox implements Outbox {
  readonly #shelf: Shelf;
  readonly #deps: Dependencies;
  readonly #pendingListeners = new Set<(count: number) => void>();
  readonly #refusedListeners = new Set<(refusal: Refusal) => void>();
  readonly #failedListeners = new Set<(error: OutboxStorageError) => void>();
  #count = 0;
  /** The flush in progress; a flush asked for meanwhile sets `#again` and is served by it. */
  #running: Promise<void> | undefined;
  #again = false;
  #attempt = 0;
  #retryHandle: unknown;
  #retryArmed = false;
  #stopOnline: (() => void) | undefined;
  #closed = false;

  constructor(shelf: Shelf, deps: Dependencies) {
    this.#shelf = shelf;
    this.#deps = deps;
  }

  get durable(): boolean {
    return this.#shelf.durable;
  }

  /** Counts what an earlier page left, listens for the network, and starts sending it. */
  async start(onOnline: (listener: () => void) => () => void): Promise<void> {
    await this.#recount();
    this.#stopOnline = onOnline(() => {
      this.#flushInBackground();
    });
    this.#flushInBackground();
  }

  async startThread(bot: string): Promise<string> {
    if (bot.trim() === '') throw new OutboxLineError('A conversation needs the bot it is with; the bot’s name was empty.');
    const localThreadId = this.#deps.newId();
    await this.#shelf.add({ kind: 'thread', localThreadId, bot });
    this.#flushInBackground();
    return localThreadId;
  }

  async adoptThread(serverThreadId: string): Promise<string> {
    if (serverThreadId === '') throw new OutboxLineError('A conversation from the server needs its id; the id was empty.');
    // Server ids never collide with the local ids made here, so an adopted thread is its own local id.
    await this.#shelf.link({ localThreadId: serverThreadId, serverThreadId });
    return serverThreadId;
  }

  async addLine(localThreadId: string, line: OutboxLine): Promise<void> {
    if (line.text.trim() === '') throw new OutboxLineError('A line with no words cannot be saved; only what was said is kept.');
    if (line.clientId === '') throw new OutboxLineError('A line needs its clientId, or sending it again would keep it twice.');
    const { who, text, clientId } = line;
    // A plain copy: a reactive proxy from the page cannot be stored, and nothing else belongs on disk.
    const copy: OutboxLine = line.interrupted === undefined ? { who, text, clientId } : { who, text, clientId, interrupted: line.interrupted };
    await this.#shelf.add({ kind: 'line', localThreadId, line: copy });
    await this.#recount();
    this.#flushInBackground();
  }

  flush(): Promise<void> {
    this.#again = true;
    this.#running ??= this.#drain();
    return this.#running;
  }

  pending(): number {
    return this.#count;
  }

  serverThreadId(localThreadId: string): Promise<string | undefined> {
    return this.#shelf.serverThreadId(localThreadId);
  }

  onPending(listener: (count: number) => void): () => void {
    return subscribe(this.#pendingListeners, listener);
  }

  onRefused(listener: (refusal: Refusal) => void): () => void {
    return subscribe(this.#refusedListeners, listener);
  }

  onFailed(listener: (error: OutboxStorageError) => void): () => void {
    return subscribe(this.#failedListeners, listener);
  }

  close(): void {
    this.#closed = true;
    this.#disarmRetry();
    this.#stopOnline?.();
    this.#stopOnline = undefined;
  }

  /** Passes until no flush was asked for during the last one, then arms (or clears) the retry. */
  async #drain(): Promise<void> {
    let waiting = false;
    try {
      while (this.#again) {
        this.#again = false;
        waiting = await this.#deps.exclusive(() => this.#pass());
      }
    } catch (error) {
      waiting = true;
      throw error;
    } finally {
      // No await between the loop's last check and here, so a flush asked for after it starts anew.
      this.#running = undefined;
      this.#afterDrain(waiting);
    }
  }

  /** Sends the oldest record until none is left (false) or the server cannot be reached (true). */
  async #pass(): Promise<boolean> {
    for (;;) {
      if (this.#closed) return false;
      const next = await this.#shelf.first();
      if (next === undefined) return false;
      const sent = await this.#send(next.record);
      if (sent.kind === 'waiting') return true;
      await this.#shelf.settle(next.key, sent.kind === 'sent' ? sent.link : undefined);
      await this.#recount();
      if (sent.kind === 'refused') for (const listener of this.#refusedListeners) listener(sent.refusal);
    }
  }

  async #send(record: OutboxRecord): Promise<Sent> {
    if (record.kind === 'thread') {
      try {
        const { id } = await this.#deps.api.createThread(record.bot);
        return { kind: 'sent', link: { localThreadId: record.localThreadId, serverThreadId: id } };
      } catch (error) {
        if (this.#deps.retryable(error)) return { kind: 'waiting' };
        const reason = sayWord('page-lines.thread-refused');
        return { kind: 'refused', refusal: { ...record, reason, error } };
      }
    }
    const { localThreadId, line } = record;
    const serverThreadId = await this.#shelf.serverThreadId(localThreadId);
    if (serverThreadId === undefined) {
      // Its creation went first and is gone without a server id: it was refused, or never kept here.
      const reason = sayWord('page-lines.thread-lost');
      const error = new OutboxLineError(`The conversation ${localThreadId} was never saved on the server, so its lines cannot be.`);
      return { kind: 'refused', refusal: { kind: 'line', localThreadId, line, reason, error } };
    }
    try {
      await this.#deps.api.addLine(serverThreadId, line);
      return { kind: 'sent' };
    } catch (error) {
      if (this.#deps.retryable(error)) return { kind: 'waiting' };
      const reason = sayWord('page-lines.line-refused');
      return { kind: 'refused', refusal: { kind: 'line', localThreadId, line, reason, error } };
    }
  }

  async #recount(): Promise<void> {
    const count = await this.#shelf.lineCount();
    if (count === this.#count) return;
    this.#count = count;
    for (const listener of this.#pendingListeners) listener(count);
  }

  /** A flush nobody awaits: a storage failure is told to `onFailed` and retried like an unreachable server. */
  #flushInBackground(): void {
    if (this.#closed) return;
    this.flush().catch((error: unknown) => {
      const failure = error instanceof OutboxStorageError ? error : new OutboxStorageError(sayWord('page-lines.sending-failed'), { cause: error });
      for (const listener of this.#failedListeners) listener(failure);
    });
  }

  /** While anything waits, the next try is on a timer that backs off; once all is sent, none is. */
  #afterDrain(waiting: boolean): void {
    this.#disarmRetry();
    if (!waiting) {
      this.#attempt = 0;
      return;
    }
    if (this.#closed) return;
    const delayMs = retryDelayMs(this.#attempt, this.#deps.retryFirstMs, this.#deps.retryMaxMs);
    this.#attempt += 1;
    this.#retryArmed = true;
    this.#retryHandle = this.#deps.timer.setTimeout(() => {
      this.#retryArmed = false;
      this.#flushInBackground();
    }, delayMs);
  }

  #disarmRetry(): void {
    if (!this.#retryArmed) return;
    this.#retryArmed = false;
    this.#deps.timer.clearTimeout(this.#retryHandle);
  }
}

function subscribe<T>(listeners: Set<(value: T) => void>, listener: (value: T) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const globalTimer: OutboxTimer = {
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => {
    globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>);
  },
};

/** The window's `online` event; nothing to listen to where there is no window (a worker, a test). */
function windowOnline(listener: () => void): () => void {
  const target = globalThis as Partial<Pick<Window, 'addEventListener' | 'removeEventListener'>>;
  if (typeof target.addEventListener !== 'function' || typeof target.removeEventListener !== 'function') return () => undefined;
  target.addEventListener('online', listener);
  return () => {
    target.removeEventListener?.('online', listener);
  };
}

/** One flush at a time across every tab of this page, where the browser has Web Locks. */
function webLock<T>(run: () => Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  return locks === undefined ? run() : locks.request('confab-outbox', run);
}
