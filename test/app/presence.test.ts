import { describe, expect, it } from 'vitest';
import { liveStateOf, mirrorConversationView, openPresence } from '../../src/app/presence';
import type { PresenceListeners } from '../../src/app/presence';
import type { PresenceLogLine } from '../../src/app/presence/ports';
import type { ConversationPorts, ConversationView } from '../../src/app/createConversation';
import type { Line } from '../../common/conversation/events';
import type { PageSeat } from '../../src/core/presence/seat';
import type { PageRef, PresenceMessage, Publication, Seat, Sequenced, WindowEvent } from '../../common/presence/protocol';
import type { ChannelMessage, PresenceChannel } from '../../src/platform/presenceChannel';
import { HttpError } from '../../src/platform/http';
import type { PresenceClient, StreamOptions } from '../../src/platform/presenceClient';
import type { ActiveLock } from '../../src/platform/activeLock';
import { manualClock } from '../helpers/manualClock';

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** The server's side: the stream's messages are the test's to send; claims and publications are kept. */
function fakeClient(options: { claimFails?: boolean } = {}) {
  let stream: StreamOptions | null = null;
  const claims: PageRef[] = [];
  const published: Publication[] = [];
  let claimFails = options.claimFails ?? false;
  let publishFails = false;
  let claimSeat: Seat | null = null;
  const client: PresenceClient = {
    open(opened) {
      stream = opened;
      return { reconnect: () => undefined, close: () => undefined };
    },
    claim: (_bot, me) => {
      claims.push(me);
      if (claimFails) return Promise.reject(new Error('offline'));
      return Promise.resolve(claimSeat ?? { role: 'active', term: 99, active: me });
    },
    publish: (publication) => {
      if (publishFails) return Promise.reject(new Error('offline'));
      // The server refuses a publication carrying a line it will not take, as the route's 400 does.
      if (publication.events.some((e) => e.kind === 'line' && e.line.text.startsWith('REFUSED'))) return Promise.reject(new HttpError('Confab’s server would not pass on what was said (400).', { failure: 'refused', status: 400 }));
      published.push(publication);
      return Promise.resolve({ seqs: [], seat: null });
    },
  };
  return {
    client,
    claims,
    published,
    send: (message: PresenceMessage) => {
      if (stream === null) throw new Error('no stream is open');
      stream.onMessage(message);
    },
    since: () => stream?.since() ?? null,
    set claimFails(value: boolean) {
      claimFails = value;
    },
    set publishFails(value: boolean) {
      publishFails = value;
    },
    set claimSeat(seat: Seat) {
      claimSeat = seat;
    },
  };
}

function fakeLock(free = true) {
  const stolen = new Set<() => void>();
  const takes: boolean[] = [];
  let owned = false;
  const lock: ActiveLock & { steal(): void } = {
    get owned() {
      return owned;
    },
    take({ steal }) {
      takes.push(steal);
      if (steal || free) owned = true;
      return Promise.resolve(owned);
    },
    release() {
      owned = false;
    },
    onStolen(listener) {
      stolen.add(listener);
      return () => stolen.delete(listener);
    },
    steal() {
      owned = false;
      for (const listener of stolen) listener();
    },
  };
  return { lock, takes };
}

function fakeChannel() {
  const posted: ChannelMessage[] = [];
  const listeners = new Set<(message: ChannelMessage) => void>();
  const channel: PresenceChannel = {
    post: (message) => posted.push(message),
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => undefined,
  };
  return { channel, posted, deliver: (message: ChannelMessage) => { listeners.forEach((l) => { l(message); }); } };
}

const me: PageRef = { page: 'this-page-0001', device: 'laptop-00001' };
const otherTab: PageRef = { page: 'other-tab-0002', device: 'laptop-00001' };
const phone: PageRef = { page: 'phone-page-003', device: 'phone-000003' };
const seat = (role: Seat['role'], term: number, active: PageRef | null): Seat => ({ role, term, active });
const hello = (told: Seat, extra: Partial<Extract<PresenceMessage, { type: 'hello' }>> = {}): PresenceMessage => ({ type: 'hello', seat: told, latestSeq: 0, owed: 'nothing', conversation: null, you: 'a1b2c3d4e5f60718', ...extra });
let seq = 0;
const event = (e: WindowEvent, at = ++seq): PresenceMessage => ({ type: 'event', sequenced: { seq: at, atMs: 0, event: e } satisfies Sequenced });
const said = (text: string, utteranceId: number, role: Line['role'] = 'user'): WindowEvent => ({ kind: 'line', conversation: 'conv-1', line: { role, text, utteranceId } });

function open(options: { lockFree?: boolean; since?: number | null; lines?: (threadId: string) => Promise<Line[]>; withLock?: boolean; log?: (line: PresenceLogLine) => void } = {}) {
  const clock = manualClock(flush);
  const server = fakeClient();
  const { lock, takes } = fakeLock(options.lockFree ?? true);
  const { channel, posted, deliver } = fakeChannel();
  const heard = { active: [] as boolean[], seats: [] as PageSeat[], narrations: [] as string[], mirrors: 0, runsEnded: 0, asks: [] as string[], progress: [] as string[], offers: [] as string[] };
  const named: string[] = [];
  const listeners: PresenceListeners = {
    onActive: (active) => heard.active.push(active),
    onSeat: (s) => heard.seats.push(s),
    onMirror: () => {
      heard.mirrors += 1;
    },
    onNarration: (sentence) => heard.narrations.push(sentence),
    onRunEnded: () => {
      heard.runsEnded += 1;
    },
    onRunProgress: (run, sentence) => heard.progress.push(`${run}: ${sentence}`),
    onRunAsks: (action) => heard.asks.push(action.id),
    onOffers: (event) => heard.offers.push(event.kind),
  };
  const presence = openPresence(
    {
      bot: 'demo',
      me,
      client: server.client,
      lock: (you) => {
        named.push(you);
        return options.withLock === false ? null : lock;
      },
      channel: () => channel,
      lines: options.lines ?? (() => Promise.resolve([])),
      since: options.since ?? null,
      clock,
      ...(options.log === undefined ? {} : { log: options.log }),
    },
    listeners,
  );
  return { presence, server, lock, takes, posted, deliver, clock, heard, named };
}

const view = (change: Partial<ConversationView>): ConversationView => ({
  phase: 'listening',
  liveLine: '',
  lines: [],
  typing: null,
  pushToTalk: false,
  talkHeld: false,
  waiting: false,
  speech: true,
  listening: true,
  problem: null,
  pendingAction: null,
  ...change,
});

describe('presence in the page', () => {
  it('becomes the active page when the referee says so, taking this browser’s lock for the person the hello names', async () => {
    const { presence, server, lock, heard, named } = open();
    await flush();
    expect(lock.owned).toBe(false);
    server.send(hello(seat('active', 1, me)));
    await presence.ready;
    await flush();
    expect(named).toEqual(['a1b2c3d4e5f60718']);
    expect(lock.owned).toBe(true);
    expect(presence.isActive()).toBe(true);
    expect(heard.active).toEqual([true]);
    expect(heard.seats.at(-1)).toMatchObject({ role: 'active', where: 'here' });
  });

  it('stays quiet, without the lock, when the active page is on another device', async () => {
    const { presence, server, lock, heard } = open();
    await flush();
    server.send(hello(seat('passive', 4, phone)));
    await presence.ready;
    expect(heard.active).toEqual([false]);
    expect(lock.owned).toBe(false);
    expect(presence.seat()).toMatchObject({ role: 'passive', where: 'device' });
  });

  it('goes quiet at once when another tab steals the lock, and heeds no late word from before', async () => {
    const { presence, server, lock, heard } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    lock.steal();
    expect(heard.active).toEqual([true, false]);
    expect(presence.seat()).toMatchObject({ role: 'passive', where: 'tab' });
    server.send({ type: 'seat', seat: seat('active', 1, me) });
    expect(presence.isActive()).toBe(false);
    server.send({ type: 'seat', seat: seat('passive', 2, otherTab) });
    expect(presence.seat()).toMatchObject({ role: 'passive', term: 2, where: 'tab' });
    expect(heard.active).toEqual([true, false]);
  });

  it('becomes the active page on a gesture at once: steals the lock, claims it, and obeys the answer', async () => {
    const { presence, server, takes, heard } = open({ lockFree: false });
    await flush();
    server.send(hello(seat('passive', 3, otherTab)));
    presence.takeOver();
    expect(heard.active).toEqual([false, true]);
    expect(takes).toContain(true);
    expect(server.claims).toEqual([me]);
    await flush();
    expect(presence.seat()).toMatchObject({ role: 'active', term: 99 });
    presence.takeOver();
    expect(server.claims).toHaveLength(1);
  });

  it('stays the active page it became while the server cannot be reached, and claims it again when the stream is back', async () => {
    const { presence, server, heard } = open();
    await flush();
    server.send(hello(seat('passive', 3, phone)));
    server.claimFails = true;
    presence.takeOver();
    await flush();
    expect(presence.isActive()).toBe(true);
    server.claimFails = false;
    // The stream opens again with the seat from before the claim: a late word, and the claim goes again.
    server.send(hello(seat('passive', 3, phone)));
    await flush();
    expect(server.claims).toHaveLength(2);
    expect(presence.seat()).toMatchObject({ role: 'active', term: 99 });
    expect(heard.active).toEqual([false, true]);
  });

  it('speaks for itself when the referee says nothing within 3 s (a server without presence)', async () => {
    const { presence, clock, named } = open();
    await flush();
    await clock.advance(2_999);
    expect(presence.seat().role).toBe('unknown');
    await clock.advance(1);
    await presence.ready;
    expect(presence.isActive()).toBe(true);
    expect(named).toEqual([]);
  });

  it('mirrors what is said, each event once by its seq, and asks from the last it has when it reconnects', async () => {
    const { presence, server } = open({ since: 40 });
    await flush();
    expect(server.since()).toBe(40);
    server.send(hello(seat('passive', 1, phone), { owed: 'events', latestSeq: 42 }));
    server.send(event({ kind: 'conversation', conversation: 'conv-1', threadId: null, reopened: false }, 41));
    server.send(event(said('Hello.', 1), 42));
    server.send(event(said('Hello.', 1), 42));
    server.send({ type: 'live', from: phone.page, live: { conversation: 'conv-1', liveLine: 'and then', phase: 'listening', draft: null } });
    expect(mirrorConversationView(presence.mirror(), { pushToTalk: false, speech: true, canListen: true })).toMatchObject({ lines: [{ role: 'user', text: 'Hello.', utteranceId: 1 }], liveLine: 'and then', typing: 'muted' });
    expect(presence.lastSeq()).toBe(42);
    expect(server.since()).toBe(42);
  });

  it('shows this browser’s other tab at once, from the channel; not while it is the active page itself', async () => {
    const { presence, server, deliver } = open();
    await flush();
    server.send(hello(seat('passive', 1, otherTab)));
    deliver({ type: 'events', from: otherTab.page, events: [{ kind: 'conversation', conversation: 'conv-1', threadId: null, reopened: false }, said('From the other tab.', 1)] });
    expect(presence.mirror().lines.map((l) => l.text)).toEqual(['From the other tab.']);
    presence.takeOver();
    deliver({ type: 'events', from: otherTab.page, events: [said('Late.', 2)] });
    expect(presence.mirror().lines.map((l) => l.text)).toEqual(['From the other tab.']);
  });

  it('reloads the conversation from its lines when it fell out of the window', async () => {
    const asked: string[] = [];
    const { presence, server } = open({
      since: 3,
      lines: (threadId) => {
        asked.push(threadId);
        return Promise.resolve([{ role: 'user', text: 'Kept on the server.', utteranceId: 1 }]);
      },
    });
    await flush();
    server.send(hello(seat('passive', 1, phone), { owed: 'reload', latestSeq: 500, conversation: { conversation: 'conv-9', threadId: 'thread-9', reopened: false } }));
    await flush();
    expect(asked).toEqual(['thread-9']);
    expect(presence.mirror()).toMatchObject({ conversation: { conversation: 'conv-9', threadId: 'thread-9' }, lastSeq: 500, lines: [{ text: 'Kept on the server.' }] });
  });

  it('narrates verbs that finished elsewhere while it is the active page, a burst as one sentence after 500 ms', async () => {
    const { presence, server, clock, heard } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    server.send(event({ kind: 'verb', verb: 'lists.add', ok: true, sentence: "That's 3 things on your shopping list.", origin: 'elsewhere' }));
    await clock.advance(200);
    presence.narrate('Reminder: stretch.');
    await clock.advance(499);
    expect(heard.narrations).toEqual([]);
    await clock.advance(1);
    expect(heard.narrations).toEqual(["That's 3 things on your shopping list; Reminder: stretch."]);
  });

  it('does not narrate on a passive page', async () => {
    const { server, clock, heard } = open();
    await flush();
    server.send(hello(seat('passive', 1, phone)));
    server.send(event({ kind: 'verb', verb: 'lists.add', ok: true, sentence: 'Added.', origin: 'elsewhere' }));
    server.send(event({ kind: 'run', run: 'run-1', sentence: "I'm still on it: 1 step done so far.", ended: false }));
    server.send(event({ kind: 'run', run: 'run-1', sentence: null, ended: true }));
    await clock.advance(1_000);
    expect(heard.narrations).toEqual([]);
    expect(heard.progress).toEqual([]);
    expect(heard.runsEnded).toBe(0);
  });

  it('passes on only a run’s latest progress, once quiet for 500 ms, apart from other news', async () => {
    const { server, clock, heard } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    server.send(event({ kind: 'run', run: 'run-1', sentence: "I'm still on it: 1 step done so far.", ended: false }));
    server.send(event({ kind: 'verb', verb: 'lists.add', ok: true, sentence: 'Added.', origin: 'elsewhere' }));
    await clock.advance(300);
    server.send(event({ kind: 'run', run: 'run-1', sentence: "I'm still on it: 2 steps done so far.", ended: false }));
    await clock.advance(499);
    expect(heard.progress).toEqual([]);
    await clock.advance(1);
    expect(heard.progress).toEqual(["run-1: I'm still on it: 2 steps done so far."]);
    expect(heard.narrations).toEqual(['Added.']);
  });

  it('passes on a long run’s progress now and then, not at every step: its newest word once the gap since the last is over', async () => {
    const { server, clock, heard } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    server.send(event({ kind: 'run', run: 'run-1', sentence: "I'm still on it: 1 step done so far.", ended: false }));
    await clock.advance(500);
    expect(heard.progress).toEqual(["run-1: I'm still on it: 1 step done so far."]);
    // Steps every 2.5 s: those inside the 8 s gap wait, and only the newest is passed on.
    for (const n of [2, 3, 4]) {
      await clock.advance(2_500);
      server.send(event({ kind: 'run', run: 'run-1', sentence: `I'm still on it: ${String(n)} steps done so far.`, ended: false }));
    }
    await clock.advance(499);
    expect(heard.progress).toHaveLength(1);
    await clock.advance(1);
    expect(heard.progress).toEqual(["run-1: I'm still on it: 1 step done so far.", "run-1: I'm still on it: 4 steps done so far."]);
    // Another run is not held by this one's gap.
    server.send(event({ kind: 'run', run: 'run-2', sentence: "I'm still on it: 1 step done so far.", ended: false }));
    await clock.advance(500);
    expect(heard.progress.at(-1)).toBe("run-2: I'm still on it: 1 step done so far.");
  });

  it('asks a run’s question through the conversation rather than narrating it', async () => {
    const { server, clock, heard } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    const ask = { id: 'act-9', verb: 'lists.clear', question: 'Clear your shopping list? Say yes or no.', expiresAtMs: 9e12 };
    server.send(event({ kind: 'run', run: 'run-1', sentence: ask.question, ended: false, ask }));
    await clock.advance(1_000);
    expect(heard.asks).toEqual(['act-9']);
    expect(heard.narrations).toEqual([]);
  });

  it('drops a run’s unsaid progress when it ends, and asks for its notice instead', async () => {
    const { server, clock, heard } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    server.send(event({ kind: 'run', run: 'run-1', sentence: "I'm still on it: 3 steps done so far.", ended: false }));
    await clock.advance(100);
    server.send(event({ kind: 'run', run: 'run-1', sentence: null, ended: true }));
    await clock.advance(1_000);
    expect(heard.progress).toEqual([]);
    expect(heard.runsEnded).toBe(1);
  });

  it('publishes what is kept and spoken, in order, to the server and this browser’s tabs; sends again what could not go', async () => {
    const { presence, server, posted, clock } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    const spoken: unknown[] = [];
    const kept: Line[] = [];
    const ports = presence.tap(
      {
        keep: (line: Line) => kept.push(line),
        speaker: { speak: (request: unknown) => spoken.push(request), cancel: () => undefined, onFailed: () => () => undefined, onPaced: () => () => undefined },
      } as unknown as ConversationPorts,
      () => 'conv-1',
    );
    server.publishFails = true;
    ports.keep({ role: 'user', text: 'Question.', utteranceId: 1 });
    ports.speaker.speak({ utteranceId: 1, piece: 0, text: 'Answer.', voice: 'device', steps: 8, floor: 4 });
    expect(kept).toHaveLength(1);
    expect(spoken).toHaveLength(1);
    expect(posted.map((p) => (p.type === 'events' ? p.events.map((e) => e.kind) : []))).toEqual([['line'], ['piece']]);
    await flush();
    expect(server.published).toEqual([]);
    server.publishFails = false;
    await clock.advance(5_000);
    expect(server.published.flatMap((p) => p.events)).toEqual([
      { kind: 'line', conversation: 'conv-1', line: { role: 'user', text: 'Question.', utteranceId: 1 } },
      { kind: 'piece', conversation: 'conv-1', utteranceId: 1, piece: 0, text: 'Answer.' },
    ]);
  });

  it('drops an event the server refused, saying so by its status only, and sends the next one', async () => {
    const logged: PresenceLogLine[] = [];
    const { presence, server, clock } = open({ log: (line) => logged.push(line) });
    await flush();
    server.send(hello(seat('active', 1, me)));
    presence.publish([said('REFUSED secret words', 1)]);
    await flush();
    presence.publish([said('Next.', 2)]);
    await flush();
    expect(server.published.flatMap((p) => p.events)).toEqual([said('Next.', 2)]);
    expect(logged).toEqual([{ event: 'presence.event-dropped', status: 400 }]);
    // Nothing waits to be tried again: no time passing brings the refused one back.
    await clock.advance(60_000);
    expect(server.published.flatMap((p) => p.events)).toEqual([said('Next.', 2)]);
  });

  it('sends a refused publication of several again one event at a time, dropping only the one refused', async () => {
    const logged: PresenceLogLine[] = [];
    const { presence, server } = open({ log: (line) => logged.push(line) });
    await flush();
    server.send(hello(seat('active', 1, me)));
    presence.publish([said('First.', 1), said('REFUSED', 2), said('Third.', 3)]);
    await flush();
    presence.publish([said('Fourth.', 4), said('Fifth.', 5)]);
    await flush();
    expect(server.published.map((p) => p.events)).toEqual([[said('First.', 1)], [said('Third.', 3)], [said('Fourth.', 4), said('Fifth.', 5)]]);
    expect(logged).toHaveLength(1);
  });

  it('publishes the live state at most every 150 ms, the latest, and only while it is the active page', async () => {
    const { presence, server, clock } = open();
    await flush();
    server.send(hello(seat('active', 1, me)));
    presence.live(view({ liveLine: 'what' }), 'conv-1');
    await flush();
    presence.live(view({ liveLine: 'what time' }), 'conv-1');
    presence.live(view({ liveLine: 'what time is' }), 'conv-1');
    await flush();
    expect(server.published.map((p) => p.live?.liveLine)).toEqual(['what']);
    await clock.advance(150);
    expect(server.published.map((p) => p.live?.liveLine)).toEqual(['what', 'what time is']);
    server.send({ type: 'seat', seat: seat('passive', 2, phone) });
    presence.live(view({ liveLine: 'shh' }), 'conv-1');
    await clock.advance(200);
    expect(server.published).toHaveLength(2);
  });
});

describe('the live state of a conversation', () => {
  it('carries the answer being written as its draft, and none while the turn is the person’s', () => {
    const lines: Line[] = [
      { role: 'user', text: 'Hi.', utteranceId: 1 },
      { role: 'assistant', text: 'Hello th', utteranceId: 1 },
    ];
    expect(liveStateOf(view({ phase: 'speaking', lines }), 'c')).toEqual({ conversation: 'c', liveLine: '', phase: 'speaking', draft: { utteranceId: 1, text: 'Hello th' } });
    expect(liveStateOf(view({ phase: 'listening', lines, liveLine: 'and' }), 'c').draft).toBeNull();
  });

  it('shows a passive page the way in its settings give', () => {
    const mirror = { conversation: null, lines: [], pieces: {}, live: null, lastSeq: 0, needsLines: false };
    expect(mirrorConversationView(mirror, { pushToTalk: true, speech: true, canListen: true })).toMatchObject({ typing: null, pushToTalk: true, listening: false });
    expect(mirrorConversationView(mirror, { pushToTalk: false, speech: false, canListen: false })).toMatchObject({ typing: 'unsupported', speech: false });
  });
});
