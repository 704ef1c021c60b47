import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../common/options';
import { openLocalDb } from '../../src/platform/localDb';
import type { LocalDb } from '../../src/platform/localDb';
import {
  createOutbox,
  isRetryable,
  OutboxLineError,
  OutboxStorageError,
  retryDelayMs,
} from '../../src/platform/outbox';
import type { Outbox, OutboxApi, OutboxLine, OutboxOptions, OutboxTimer, Refusal } from '../../src/platform/outbox';

/** Thrown when the server could not be reached: no status, so it waits. */
class Unreachable extends Error {}

/** An answer the server gave: a status the outbox reads. */
class Answered extends Error {
  constructor(readonly status: number) {
    super(`answered ${status}`);
  }
}

/**
 * A stand-in for the threads and lines routes: keeps lines per thread, answers a repeated clientId
 * with the line it has (as the real one does), counts every call that reached it per clientId, and
 * can be made unreachable, made to refuse, or held at a gate.
 */
function fakeServer() {
  const threads = new Map<string, { bot: string; lines: OutboxLine[] }>();
  const callsPerClientId = new Map<string, number>();
  const arrivals = new Map<string, () => void>();
  const arrived = new Set<string>();
  const state = {
    reachable: true,
    /** Bots the server will not start a conversation with. */
    unknownBots: new Set<string>(),
    /** Texts the server refuses outright (400). */
    refusedTexts: new Set<string>(),
    /** Every call that reached the server, in order. */
    log: [] as string[],
    createCalls: 0,
    gate: Promise.resolve(),
  };
  const api: OutboxApi = {
    async createThread(bot) {
      await state.gate;
      if (!state.reachable) throw new Unreachable('fetch failed');
      state.createCalls += 1;
      if (state.unknownBots.has(bot)) throw new Answered(404);
      const id = `server-${threads.size + 1}`;
      threads.set(id, { bot, lines: [] });
      state.log.push(`thread ${bot} ${id}`);
      return { id };
    },
    async addLine(serverThreadId, line) {
      await state.gate;
      if (!state.reachable) throw new Unreachable('fetch failed');
      callsPerClientId.set(line.clientId, (callsPerClientId.get(line.clientId) ?? 0) + 1);
      const thread = threads.get(serverThreadId);
      if (thread === undefined) throw new Answered(404);
      if (state.refusedTexts.has(line.text)) throw new Answered(400);
      const kept = thread.lines.find((l) => l.clientId === line.clientId);
      if (kept !== undefined) return kept;
      thread.lines.push(line);
      state.log.push(`line ${serverThreadId} ${line.clientId}`);
      arrived.add(line.clientId);
      arrivals.get(line.clientId)?.();
      return line;
    },
  };
  return {
    api,
    state,
    threads,
    callsPerClientId,
    /** Starts a thread as another device would have. */
    knownThread(bot: string): string {
      const id = `server-${threads.size + 1}`;
      threads.set(id, { bot, lines: [] });
      return id;
    },
    linesOf: (serverThreadId: string) => (threads.get(serverThreadId)?.lines ?? []).map((l) => l.clientId),
    /** Resolves when the line `clientId` has been kept. */
    arrival(clientId: string): Promise<void> {
      if (arrived.has(clientId)) return Promise.resolve();
      return new Promise((resolve) => arrivals.set(clientId, resolve));
    },
    /** Holds every call until the returned function is called. */
    hold(): () => void {
      let release: () => void = () => undefined;
      state.gate = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
  };
}

/** A timer the test fires by hand; records each delay asked for. */
function fakeTimer() {
  let armed: { callback: () => void; handle: number } | undefined;
  let nextHandle = 1;
  const delays: number[] = [];
  let onArm: ((delayMs: number) => void) | undefined;
  const timer: OutboxTimer = {
    setTimeout(callback, delayMs) {
      const handle = nextHandle++;
      armed = { callback, handle };
      delays.push(delayMs);
      onArm?.(delayMs);
      return handle;
    },
    clearTimeout(handle) {
      if (armed?.handle === handle) armed = undefined;
    },
  };
  return {
    timer,
    delays,
    isArmed: () => armed !== undefined,
    /** Resolves with the delay of the next retry armed. */
    nextArm: () =>
      new Promise<number>((resolve) => {
        onArm = resolve;
      }),
    fire() {
      const due = armed;
      armed = undefined;
      if (due === undefined) throw new Error('no retry is armed');
      due.callback();
    },
  };
}

function fakeNetwork() {
  const listeners = new Set<() => void>();
  return {
    onOnline: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    listening: () => listeners.size,
    comeBack: () => {
      for (const listener of listeners) listener();
    },
  };
}

/** One flush at a time, as a Web Lock gives across tabs. */
function sharedLock(): <T>(run: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>) => {
    const turn = tail.then(run);
    tail = turn.catch(() => undefined);
    return turn;
  };
}

const said = (clientId: string, text = `words of ${clientId}`): OutboxLine => ({ who: 'person', text, clientId });

let ids = 0;

/** A device with its own IndexedDB; `outbox()` opens an outbox over it as a page load would. */
function device(server: ReturnType<typeof fakeServer>, extra: Partial<OutboxOptions> = {}) {
  const factory = new IDBFactory();
  const clock = fakeTimer();
  const network = fakeNetwork();
  const opened: LocalDb[] = [];
  const db = async () => {
    const open = await openLocalDb(factory);
    opened.push(open);
    return open;
  };
  let connection: Promise<LocalDb> | undefined;
  const shared = () => (connection ??= db());
  return {
    factory,
    clock,
    network,
    outbox: (options: Partial<OutboxOptions> = {}): Promise<Outbox> =>
      createOutbox({
        api: server.api,
        db: shared,
        timer: clock.timer,
        onOnline: network.onOnline,
        newId: () => `local-${++ids}`,
        ...extra,
        ...options,
      }),
  };
}

describe('lines said while the server cannot be reached', () => {
  it('wait, and are sent in the order said once it answers', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;
    for (const id of ['a', 'b', 'c']) await outbox.addLine(thread, said(id));
    await outbox.flush();
    expect(outbox.pending()).toBe(3);
    expect(server.linesOf(thread)).toEqual([]);

    server.state.reachable = true;
    await outbox.flush();
    expect(server.linesOf(thread)).toEqual(['a', 'b', 'c']);
    expect(outbox.pending()).toBe(0);
    outbox.close();
  });

  it('are kept with everything the server needs: who, the words, the id and whether it was cut short', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;
    await outbox.addLine(thread, { who: 'person', text: 'Tell me about tides.', clientId: 'q1' });
    await outbox.addLine(thread, { who: 'assistant', text: 'Tides follow the moon', clientId: 'a1', interrupted: true });
    server.state.reachable = true;
    await outbox.flush();
    expect(server.threads.get(thread)?.lines).toEqual([
      { who: 'person', text: 'Tell me about tides.', clientId: 'q1' },
      { who: 'assistant', text: 'Tides follow the moon', clientId: 'a1', interrupted: true },
    ]);
    outbox.close();
  });

  it('are sent when the network comes back', async () => {
    const server = fakeServer();
    const place = device(server);
    const outbox = await place.outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;
    await outbox.addLine(thread, said('a'));
    await outbox.flush();
    server.state.reachable = true;
    place.network.comeBack();
    await server.arrival('a');
    expect(server.linesOf(thread)).toEqual(['a']);
    outbox.close();
  });
});

describe('a reload', () => {
  it('sends what the previous page left, with no flush asked for', async () => {
    const server = fakeServer();
    const place = device(server);
    server.state.reachable = false;
    const before = await place.outbox();
    const thread = await before.startThread('ada');
    await before.addLine(thread, said('a'));
    await before.addLine(thread, said('b'));
    await before.flush();
    before.close();
    expect(server.threads.size).toBe(0);

    server.state.reachable = true;
    const after = await place.outbox();
    await server.arrival('b');
    const serverThread = await after.serverThreadId(thread);
    expect(serverThread).toBe('server-1');
    expect(server.linesOf('server-1')).toEqual(['a', 'b']);
    after.close();
  });

  it('counts what waits as soon as the outbox is open', async () => {
    const server = fakeServer();
    const place = device(server);
    server.state.reachable = false;
    const before = await place.outbox();
    const thread = await before.adoptThread(server.knownThread('ada'));
    await before.addLine(thread, said('a'));
    await before.addLine(thread, said('b'));
    before.close();

    const after = await place.outbox();
    expect(after.pending()).toBe(2);
    expect(after.durable).toBe(true);
    after.close();
  });

  it('continues a thread whose creation was sent before the reload', async () => {
    const server = fakeServer();
    const place = device(server);
    const before = await place.outbox();
    const thread = await before.startThread('ada');
    await before.flush();
    server.state.reachable = false;
    await before.addLine(thread, said('a'));
    before.close();

    server.state.reachable = true;
    const after = await place.outbox();
    await server.arrival('a');
    expect(server.state.createCalls).toBe(1);
    expect(server.linesOf('server-1')).toEqual(['a']);
    after.close();
  });
});

describe('a thread started while the server cannot be reached', () => {
  it('is created before its lines are sent, and its lines go to it', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    server.state.reachable = false;
    const thread = await outbox.startThread('ada');
    await outbox.addLine(thread, said('a'));
    await outbox.addLine(thread, said('b'));
    await outbox.flush();
    expect(await outbox.serverThreadId(thread)).toBeUndefined();

    server.state.reachable = true;
    await outbox.flush();
    expect(server.state.log).toEqual(['thread ada server-1', 'line server-1 a', 'line server-1 b']);
    expect(await outbox.serverThreadId(thread)).toBe('server-1');
    outbox.close();
  });

  it('keeps two conversations apart', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    server.state.reachable = false;
    const first = await outbox.startThread('ada');
    await outbox.addLine(first, said('a'));
    const second = await outbox.startThread('grace');
    await outbox.addLine(second, said('b'));
    await outbox.addLine(first, said('c'));
    server.state.reachable = true;
    await outbox.flush();
    const firstServer = await outbox.serverThreadId(first);
    const secondServer = await outbox.serverThreadId(second);
    expect(firstServer).not.toBe(secondServer);
    expect(server.linesOf(firstServer ?? '')).toEqual(['a', 'c']);
    expect(server.linesOf(secondServer ?? '')).toEqual(['b']);
    expect(server.threads.get(secondServer ?? '')?.bot).toBe('grace');
    outbox.close();
  });
});

describe('sending twice', () => {
  it('never happens, however many flushes overlap', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    server.state.reachable = false;
    const thread = await outbox.startThread('ada');
    for (const id of ['a', 'b', 'c', 'd']) await outbox.addLine(thread, said(id));
    await outbox.flush();

    server.state.reachable = true;
    const release = server.hold();
    const flushes = [outbox.flush(), outbox.flush(), outbox.flush()];
    release();
    await Promise.all(flushes);
    await outbox.flush();
    expect(server.state.createCalls).toBe(1);
    expect(Object.fromEntries(server.callsPerClientId)).toEqual({ a: 1, b: 1, c: 1, d: 1 });
    expect(server.linesOf('server-1')).toEqual(['a', 'b', 'c', 'd']);
    outbox.close();
  });

  it('never happens across two tabs that share the lock, not even for a waiting thread', async () => {
    const server = fakeServer();
    const place = device(server, { exclusive: sharedLock() });
    server.state.reachable = false;
    const tabOne = await place.outbox();
    const tabTwo = await place.outbox();
    const thread = await tabOne.startThread('ada');
    await tabOne.addLine(thread, said('a'));
    await tabOne.addLine(thread, said('b'));
    await Promise.all([tabOne.flush(), tabTwo.flush()]);

    server.state.reachable = true;
    const release = server.hold();
    const flushes = [tabOne.flush(), tabTwo.flush()];
    release();
    await Promise.all(flushes);
    expect(server.state.createCalls).toBe(1);
    expect(Object.fromEntries(server.callsPerClientId)).toEqual({ a: 1, b: 1 });
    tabOne.close();
    tabTwo.close();
  });
});

describe('what the server refuses', () => {
  it('is dropped and reported once, and the lines after it still go', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const refusals: Refusal[] = [];
    outbox.onRefused((refusal) => refusals.push(refusal));
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.refusedTexts.add('refused words');
    server.state.reachable = false;
    await outbox.addLine(thread, said('a'));
    await outbox.addLine(thread, said('bad', 'refused words'));
    await outbox.addLine(thread, said('c'));

    server.state.reachable = true;
    await outbox.flush();
    await outbox.flush();
    expect(server.linesOf(thread)).toEqual(['a', 'c']);
    expect(server.callsPerClientId.get('bad')).toBe(1);
    expect(outbox.pending()).toBe(0);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ kind: 'line', localThreadId: thread, line: { clientId: 'bad' } });
    expect(refusals[0]?.error).toBeInstanceOf(Answered);
    expect(refusals[0]?.reason).toMatch(/would not keep this line/);
    outbox.close();
  });

  it('drops the lines of a conversation forgotten on another device instead of retrying them forever', async () => {
    const server = fakeServer();
    const place = device(server);
    const outbox = await place.outbox();
    const refused: string[] = [];
    outbox.onRefused((refusal) => refused.push(refusal.kind === 'line' ? refusal.line.clientId : refusal.bot));
    const thread = await outbox.adoptThread('forgotten-elsewhere');
    await outbox.addLine(thread, said('a'));
    await outbox.flush();
    expect(refused).toEqual(['a']);
    expect(outbox.pending()).toBe(0);
    expect(place.clock.isArmed()).toBe(false);
    outbox.close();
  });

  it('drops a conversation the server will not start, and reports it and each of its lines', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const refusals: Refusal[] = [];
    outbox.onRefused((refusal) => refusals.push(refusal));
    server.state.unknownBots.add('ghost');
    server.state.reachable = false;
    const thread = await outbox.startThread('ghost');
    await outbox.addLine(thread, said('a'));
    await outbox.addLine(thread, said('b'));

    server.state.reachable = true;
    await outbox.flush();
    expect(refusals.map((r) => r.kind)).toEqual(['thread', 'line', 'line']);
    expect(refusals[0]).toMatchObject({ kind: 'thread', bot: 'ghost', localThreadId: thread });
    expect(refusals[1]?.error).toBeInstanceOf(OutboxLineError);
    expect(refusals[2]).toMatchObject({ kind: 'line', line: { clientId: 'b' } });
    expect(server.state.createCalls).toBe(1);
    expect(server.callsPerClientId.size).toBe(0);
    expect(outbox.pending()).toBe(0);
    outbox.close();
  });
});

describe('the pending count', () => {
  it('counts lines waiting (not thread creations) and tells each change', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const counts: number[] = [];
    outbox.onPending((count) => counts.push(count));
    server.state.reachable = false;
    const thread = await outbox.startThread('ada');
    expect(outbox.pending()).toBe(0);
    for (const id of ['a', 'b', 'c']) await outbox.addLine(thread, said(id));
    await outbox.flush();
    expect(outbox.pending()).toBe(3);

    server.state.reachable = true;
    await outbox.flush();
    expect(counts).toEqual([1, 2, 3, 2, 1, 0]);
    outbox.close();
  });

  it('stops telling a listener that stopped listening', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const counts: number[] = [];
    const stop = outbox.onPending((count) => counts.push(count));
    server.state.reachable = false;
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    await outbox.addLine(thread, said('a'));
    stop();
    await outbox.addLine(thread, said('b'));
    expect(counts).toEqual([1]);
    expect(outbox.pending()).toBe(2);
    outbox.close();
  });
});

describe('retrying', () => {
  it('backs off on its timer while anything waits, and stops once everything is sent', async () => {
    const server = fakeServer();
    const place = device(server);
    const outbox = await place.outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;

    let armed = place.clock.nextArm();
    await outbox.addLine(thread, said('a'));
    expect(await armed).toBe(1_000);
    for (const expected of [2_000, 4_000, 8_000]) {
      armed = place.clock.nextArm();
      place.clock.fire();
      expect(await armed).toBe(expected);
    }

    server.state.reachable = true;
    place.clock.fire();
    await server.arrival('a');
    await outbox.flush();
    expect(place.clock.isArmed()).toBe(false);
    expect(outbox.pending()).toBe(0);
    outbox.close();
  });

  it('starts its back-off afresh after everything was sent', async () => {
    const server = fakeServer();
    const place = device(server);
    const outbox = await place.outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;
    let armed = place.clock.nextArm();
    await outbox.addLine(thread, said('a'));
    await armed;
    armed = place.clock.nextArm();
    place.clock.fire();
    expect(await armed).toBe(2_000);
    server.state.reachable = true;
    await outbox.flush();

    server.state.reachable = false;
    armed = place.clock.nextArm();
    await outbox.addLine(thread, said('b'));
    expect(await armed).toBe(1_000);
    outbox.close();
  });

  it('waits no longer than retryMaxMs', () => {
    expect([0, 1, 2, 3, 6, 7, 60, 2_000].map((attempt) => retryDelayMs(attempt, 1_000, 60_000))).toEqual([
      1_000, 2_000, 4_000, 8_000, 60_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('stops retrying and listening for the network when closed, keeping what waits', async () => {
    const server = fakeServer();
    const place = device(server);
    const outbox = await place.outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;
    const armed = place.clock.nextArm();
    await outbox.addLine(thread, said('a'));
    await armed;
    expect(place.network.listening()).toBe(1);
    outbox.close();
    expect(place.clock.isArmed()).toBe(false);
    expect(place.network.listening()).toBe(0);

    server.state.reachable = true;
    const reopened = await place.outbox();
    await server.arrival('a');
    reopened.close();
  });
});

describe('which failures wait', () => {
  it('waits for a server not reached, a timeout, too many requests and the server’s own failures', () => {
    expect([new Unreachable('offline'), new Answered(408), new Answered(429), new Answered(500), new Answered(503), 'odd'].every(isRetryable)).toBe(true);
  });

  it('gives up on any other refusal', () => {
    expect([new Answered(400), new Answered(401), new Answered(403), new Answered(404), new Answered(409)].some(isRetryable)).toBe(false);
  });

  it('can be told by the app which failures wait', async () => {
    const server = fakeServer();
    const outbox = await device(server, { retryable: () => false }).outbox();
    const refused: Refusal[] = [];
    outbox.onRefused((refusal) => refused.push(refusal));
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    server.state.reachable = false;
    await outbox.addLine(thread, said('a'));
    await outbox.flush();
    expect(refused).toHaveLength(1);
    expect(refused[0]?.error).toBeInstanceOf(Unreachable);
    outbox.close();
  });
});

describe('a device that keeps nothing', () => {
  it('still sends every line, holding what waits only while the page is open', async () => {
    const server = fakeServer();
    const outbox = await device(server, { db: () => openLocalDb(null) }).outbox();
    expect(outbox.durable).toBe(false);
    server.state.reachable = false;
    const thread = await outbox.startThread('ada');
    await outbox.addLine(thread, said('a'));
    await outbox.addLine(thread, said('b'));
    await outbox.flush();
    expect(outbox.pending()).toBe(2);

    server.state.reachable = true;
    await outbox.flush();
    expect(server.state.log).toEqual(['thread ada server-1', 'line server-1 a', 'line server-1 b']);
    expect(outbox.pending()).toBe(0);
    outbox.close();
  });

  it('says so when storage fails after opening: a line is refused with a sentence, a background flush is reported and retried', async () => {
    const server = fakeServer();
    const factory = new IDBFactory();
    let broken = false;
    const connection = openLocalDb(factory);
    const db = () => (broken ? Promise.reject(new Error('storage went away')) : connection);
    const place = device(server, { db });
    const outbox = await place.outbox();
    const failed = new Promise<OutboxStorageError>((resolve) => outbox.onFailed(resolve));
    const thread = await outbox.adoptThread(server.knownThread('ada'));

    broken = true;
    await expect(outbox.addLine(thread, said('a'))).rejects.toThrow(OutboxStorageError);
    await expect(outbox.addLine(thread, said('a'))).rejects.toThrow(/storage failed while keeping unsent lines/);

    const armed = place.clock.nextArm();
    place.network.comeBack();
    expect(await armed).toBe(1_000);
    expect(await failed).toBeInstanceOf(OutboxStorageError);
    outbox.close();
  });
});

describe('what can never be saved', () => {
  it('is refused at once: a blank line, a line without an id, a conversation without a bot or an id', async () => {
    const server = fakeServer();
    const outbox = await device(server).outbox();
    const thread = await outbox.adoptThread(server.knownThread('ada'));
    await expect(outbox.addLine(thread, said('a', '   '))).rejects.toThrow(OutboxLineError);
    await expect(outbox.addLine(thread, said(''))).rejects.toThrow(/needs its clientId/);
    await expect(outbox.startThread(' ')).rejects.toThrow(OutboxLineError);
    await expect(outbox.adoptThread('')).rejects.toThrow(OutboxLineError);
    expect(outbox.pending()).toBe(0);
    outbox.close();
  });

  it('includes retry timings that make no sense', async () => {
    const server = fakeServer();
    await expect(device(server, { retryFirstMs: 0 }).outbox()).rejects.toThrow(OptionError);
    await expect(device(server, { retryFirstMs: 5_000, retryMaxMs: 1_000 }).outbox()).rejects.toThrow(
      'outbox.retryMaxMs is 1000; it must be at least outbox.retryFirstMs (5000).',
    );
  });
});
