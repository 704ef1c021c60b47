import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConversation } from '../../src/app/createConversation';
import type { ConversationPorts, SpeakerFailure } from '../../src/app/createConversation';
import type { SpeakRequest } from '../../src/core/speaking/pieceHandover';
import type { ChatMessage, Line, RecogniserError } from '../../common/conversation/events';
import type { ConversationInput } from '../../src/core/conversation/context';
import type { ActionSettled } from '../../common/acting/protocol';
import type { AnswerItem } from '../../src/platform/doorClient';
import type { Pace } from '../../common/speaking/pace';
import { SAFE_COST } from '../../common/speaking/pace';

/** A tiny event hub for the fakes. */
function hub<T extends unknown[]>() {
  const listeners = new Set<(...args: T) => void>();
  return {
    on(listener: (...args: T) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(...args: T) {
      for (const listener of listeners) listener(...args);
    },
    get size() {
      return listeners.size;
    },
  };
}

/** An answer the test releases token by token (or door event by event); records whether it was aborted. */
class ScriptedAnswer {
  readonly asked: (readonly ChatMessage[])[] = [];
  /** The turn id each answer was asked under, in order. */
  readonly turns: string[] = [];
  aborted = false;
  private waiting: ((value: AnswerItem | null) => void) | undefined;
  private queued: (AnswerItem | null)[] = [];

  port = (messages: readonly ChatMessage[], signal: AbortSignal, turnId: string): AsyncIterable<AnswerItem> => {
    this.asked.push(messages);
    this.turns.push(turnId);
    signal.addEventListener('abort', () => {
      this.aborted = true;
      this.waiting?.(null);
    });
    const next = () =>
      new Promise<AnswerItem | null>((resolve) => {
        const queued = this.queued.shift();
        if (queued !== undefined) resolve(queued);
        else this.waiting = resolve;
      });
    return {
      [Symbol.asyncIterator]: async function* () {
        for (let token = await next(); token !== null && !signal.aborted; token = await next()) yield token;
      },
    };
  };

  /** A piece of text, an item of the door's, or null for the end. */
  send(sent: string | AnswerItem | null) {
    const token = typeof sent === 'string' ? ({ type: 'text', text: sent } as const) : sent;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(token);
    } else this.queued.push(token);
  }
}

/** Runs what is due now on the simulated clock, and the promises under way. */
const settle = () => vi.advanceTimersByTimeAsync(0);

function setUp(input: Partial<ConversationInput> = {}) {
  const interim = hub<[string]>();
  const final = hub<[string]>();
  const ended = hub<[]>();
  const failed = hub<[RecogniserError]>();
  const started = hub<[{ utteranceId: number; piece: number }]>();
  const played = hub<[{ utteranceId: number; piece: number }]>();
  const speakerFailed = hub<[SpeakerFailure]>();
  const paced = hub<[Pace]>();
  const bargeIn = hub<[{ atMs: number; bar: number }]>();
  const voice = hub<[{ atMs: number; speech: boolean }]>();
  const level = hub<[{ atMs: number; level: number }]>();
  const log: string[] = [];
  const spoken: SpeakRequest[] = [];
  const kept: Line[] = [];
  const answer = new ScriptedAnswer();
  const settled: { actionId: string; approve: boolean }[] = [];
  let settleWith: (actionId: string, approve: boolean) => Promise<ActionSettled> = (_id, approve) =>
    Promise.resolve(approve ? { outcome: 'done', sentence: 'Done.' } : { outcome: 'denied', sentence: 'Okay, I’ve left it as it was.' });
  const ports: ConversationPorts = {
    recogniser: {
      start: (language: string) => log.push(`recogniser on ${language}`),
      stop: () => log.push('recogniser off'),
      on: ((event: string, listener: (...args: never[]) => void) => {
        const source = { interim, final, ended, failed }[event];
        if (source === undefined) throw new Error(event);
        return source.on(listener);
      }),
    },
    speaker: {
      speak: (request) => spoken.push(request),
      cancel: (utteranceId) => log.push(`cancel ${utteranceId}`),
      onFailed: (listener) => speakerFailed.on(listener),
      onPaced: (listener) => paced.on(listener),
    },
    player: {
      stop: () => log.push('player stop'),
      duck: (ducked) => log.push(ducked ? 'player duck' : 'player unduck'),
      on: (event, listener) => (event === 'started' ? started : played).on(listener),
    },
    hearing: { onBargeIn: (listener) => bargeIn.on(listener), onVoice: (listener) => voice.on(listener), onLevel: (listener) => level.on(listener) },
    // Vitest's fake timers stand for the frames' clock: its `Date.now` and its timers.
    clock: {
      now: () => Date.now(),
      setTimeout: (run, delayMs) => setTimeout(run, delayMs),
      clearTimeout: (id) => {
        clearTimeout(id as ReturnType<typeof setTimeout>);
      },
    },
    answer: answer.port,
    keep: (line) => kept.push(line),
    settle: (actionId, approve) => {
      settled.push({ actionId, approve });
      return settleWith(actionId, approve);
    },
    language: () => 'en',
  };
  const conversation = createConversation(ports, { recogniser: true, ...input });
  const failSettling = () => {
    settleWith = () => Promise.reject(new Error('offline'));
  };
  return { conversation, interim, final, ended, failed, started, played, speakerFailed, paced, bargeIn, voice, level, log, spoken, kept, answer, settled, failSettling };
}

describe('the conversation’s junction', () => {
  // The junction's own timers (yielding's ticks, the machine's delays) run on a simulated clock.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives each thing said a fresh turn id when it is said, and asks its answer under that id', async () => {
    const t = setUp();
    t.final.emit('Add milk to my shopping list.');
    t.answer.send('Done.');
    t.answer.send(null);
    await settle();
    t.played.emit({ utteranceId: 1, piece: 0 });
    await settle();
    t.conversation.type('Add milk to my shopping list.');
    await settle();
    expect(t.answer.asked).toHaveLength(2);
    const [spoken, typed] = t.answer.turns;
    expect(spoken).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(typed).toMatch(/^[0-9a-f-]{36}$/);
    // The same words said again are a new turn.
    expect(typed).not.toBe(spoken);
  });

  it('hands the machine the device voice’s pace and the time each part of the answer came, so later pieces wait for the voice', async () => {
    const t = setUp();
    // Said a minute ago: the pieces are planned from when the answer came, not from then.
    t.paced.emit({ atMs: Date.now() - 60_000, busyUntilMs: 0, playsUntilMs: 0, making: 0, gapMs: 120, speed: 1.05, cost: SAFE_COST });
    t.final.emit('What is the plan?');
    const before = Date.now();
    t.answer.send('Sure, here is the plan. We meet at nine by the river. Bring some water and a jacket. I will send the map tonight. ');
    t.answer.send(null);
    await settle();
    // The opening and one piece ahead; the rest waits for the voice to say it has made one.
    expect(t.spoken.map((request) => request.piece)).toEqual([0, 1]);
    expect(t.conversation.actor.getSnapshot().context.pace?.busyUntilMs).toBeGreaterThan(before);
    t.paced.emit({ atMs: Date.now(), busyUntilMs: 0, playsUntilMs: Date.now() + 5000, making: 0, gapMs: 120, speed: 1.05, cost: SAFE_COST });
    expect(t.spoken.map((request) => request.piece)).toEqual([0, 1, 2, 3].slice(0, t.spoken.length));
    expect(t.spoken.length).toBeGreaterThan(2);
    t.conversation.stop();
    expect(t.paced.size).toBe(0);
  });

  it('turns words into a question, streams its answer into the voice before it ends, and keeps both lines', async () => {
    const t = setUp();
    expect(t.log).toEqual(['recogniser on en']);
    t.interim.emit('what is the');
    expect(t.conversation.view().liveLine).toBe('what is the');
    t.final.emit('What is the time?');
    expect(t.conversation.view()).toMatchObject({ phase: 'thinking', liveLine: 'What is the time?' });
    expect(t.kept).toEqual([{ role: 'user', text: 'What is the time?', utteranceId: 1 }]);
    t.answer.send('It is noon. ');
    await settle();
    expect(t.answer.asked[0]).toEqual([{ role: 'user', content: 'What is the time?' }]);
    expect(t.spoken).toEqual([{ utteranceId: 1, piece: 0, text: 'It is noon.', voice: 'device', steps: 8, floor: 8 }]);
    t.started.emit({ utteranceId: 1, piece: 0 });
    expect(t.conversation.view().phase).toBe('speaking');
    expect(t.log.at(-1)).toBe('recogniser off');
    t.answer.send('Lunch time.');
    t.answer.send(null);
    await settle();
    t.played.emit({ utteranceId: 1, piece: 0 });
    t.started.emit({ utteranceId: 1, piece: 1 });
    t.played.emit({ utteranceId: 1, piece: 1 });
    expect(t.conversation.view().phase).toBe('listening');
    expect(t.kept.at(-1)).toEqual({ role: 'assistant', text: 'It is noon. Lunch time.', utteranceId: 1 });
    expect(t.log.at(-1)).toBe('recogniser on en');
  });

  it('on barge-in ducks the voice and listens; words that are the person’s turn stop the player, cancel the utterance, abort the answer and give the turn back', async () => {
    const t = setUp();
    t.final.emit('Tell me a long story.');
    t.answer.send('Once upon a time there was a fox. ');
    await settle();
    t.started.emit({ utteranceId: 1, piece: 0 });
    t.log.length = 0;
    t.bargeIn.emit({ atMs: Date.now(), bar: 0.2 });
    await settle();
    expect(t.log).toEqual(['player duck', 'recogniser on en']);
    expect(t.conversation.view().phase).toBe('speaking');
    t.interim.emit('wait');
    await settle();
    expect(t.log).toEqual(expect.arrayContaining(['player stop', 'cancel 1']));
    expect(t.answer.aborted).toBe(true);
    expect(t.conversation.view().phase).toBe('listening');
    expect(t.conversation.view().liveLine).toBe('wait');
    expect(t.kept.at(-1)).toMatchObject({ role: 'assistant', interrupted: true });
    t.answer.send('too late');
    await settle();
    expect(t.spoken).toHaveLength(1);
  });

  it('on barge-in by a backchannel, or by a sound with no words, carries on: nothing stopped, cancelled or kept as interrupted, the recogniser kept warm', async () => {
    const t = setUp();
    t.final.emit('Tell me a long story.');
    t.answer.send('Once upon a time there was a fox. ');
    await settle();
    t.started.emit({ utteranceId: 1, piece: 0 });
    t.log.length = 0;
    t.bargeIn.emit({ atMs: Date.now(), bar: 0.2 });
    t.final.emit('Mm-hmm.');
    await settle();
    // The recogniser stays on for the rest of the answer: a second word over it is heard from its start.
    expect(t.log).toEqual(['player duck', 'recogniser on en', 'player unduck']);
    // What it hears between decisions (the room, the voice itself) is no turn.
    t.interim.emit('the fox ran off');
    await settle();
    expect(t.conversation.view().liveLine).toBe('');
    // A cough: over by the time the gate's frames are read (the level under its bar), no words come,
    // and once words would have come the voice is back.
    t.log.length = 0;
    /** The microphone's level frames, 10 ms apart, for `ms` from now, under the bar. */
    const underBar = async (ms: number) => {
      for (let at = 0; at < ms; at += 10) {
        t.level.emit({ atMs: Date.now(), level: 0.05 });
        await vi.advanceTimersByTimeAsync(10);
      }
    };
    t.bargeIn.emit({ atMs: Date.now(), bar: 0.2 });
    await underBar(400);
    expect(t.log).toEqual(['player duck']);
    await underBar(200);
    expect(t.log).toEqual(['player duck', 'player unduck']);
    // With no level frames coming (the audio thread behind), the absence of sound decides nothing:
    // words and time do, once words would surely have come.
    t.log.length = 0;
    t.bargeIn.emit({ atMs: Date.now(), bar: 0.2 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.log).toEqual(['player duck']);
    await vi.advanceTimersByTimeAsync(600);
    expect(t.log).toEqual(['player duck', 'player unduck']);
    expect(t.answer.aborted).toBe(false);
    expect(t.conversation.view().phase).toBe('speaking');
    expect(t.kept.filter((line) => line.interrupted === true)).toEqual([]);
    expect(t.answer.asked).toHaveLength(1);
  });

  it('with the voice activity model’s frames, lets a cough go within a few hundred ms, and a short word it missed still takes the turn', async () => {
    const t = setUp();
    t.final.emit('Tell me a long story.');
    t.answer.send('Once upon a time there was a fox. ');
    await settle();
    t.started.emit({ utteranceId: 1, piece: 0 });
    t.log.length = 0;
    /** The model's frames, 32 ms apart, for `ms` from now: no speech in them. */
    const quiet = async (ms: number) => {
      for (let at = 0; at < ms; at += 32) {
        t.voice.emit({ atMs: Date.now(), speech: false });
        await vi.advanceTimersByTimeAsync(32);
      }
    };
    // The model hears the room before anyone talks over the voice.
    await quiet(100);
    t.bargeIn.emit({ atMs: Date.now(), bar: 0.2 });
    await quiet(400);
    expect(t.log).toEqual(['player duck', 'recogniser on en', 'player unduck']);
    // "Stop." said short enough that the model heard no speech in it: the recogniser's word decides.
    t.interim.emit('stop');
    await settle();
    expect(t.log).toEqual(expect.arrayContaining(['player stop', 'cancel 1']));
    expect(t.answer.aborted).toBe(true);
    expect(t.conversation.view().liveLine).toBe('stop');
  });

  it('on barge-in with push to talk takes the turn at once, as before', async () => {
    const t = setUp({ pushToTalk: true });
    t.conversation.press();
    t.final.emit('Tell me a long story.');
    t.conversation.release();
    t.answer.send('Once upon a time there was a fox. ');
    await settle();
    t.started.emit({ utteranceId: 1, piece: 0 });
    t.bargeIn.emit({ atMs: Date.now(), bar: 0.2 });
    await settle();
    expect(t.log).toEqual(expect.arrayContaining(['player stop', 'cancel 1']));
    expect(t.log).not.toContain('player duck');
    expect(t.answer.aborted).toBe(true);
  });

  it('sends typed text exactly where speech goes', async () => {
    const t = setUp();
    t.conversation.mute();
    expect(t.conversation.view().typing).toBe('muted');
    t.conversation.type('Typed, not said.');
    await settle();
    expect(t.answer.asked[0]).toEqual([{ role: 'user', content: 'Typed, not said.' }]);
  });

  it('turns a failing endpoint voice into a device voice for the same piece, and stays there', async () => {
    const t = setUp({ voice: 'endpoint' });
    t.final.emit('Hello?');
    t.answer.send('Hi there. ');
    await settle();
    expect(t.spoken).toEqual([expect.objectContaining({ piece: 0, text: 'Hi there.', voice: 'endpoint' })]);
    t.speakerFailed.emit({ utteranceId: 1, piece: 0, voice: 'endpoint', reason: 'The paid voice answered 502.' });
    expect(t.spoken.slice(1)).toEqual([expect.objectContaining({ piece: 0, text: 'Hi there.', voice: 'device' })]);
    expect(t.conversation.view().problem).toMatchObject({ kind: 'speaker' });
    t.answer.send('How are you? ');
    t.answer.send(null);
    await settle();
    expect(t.spoken.at(-1)).toMatchObject({ piece: 1, text: 'How are you?', voice: 'device' });
  });

  it('cuts an answer under way when the person leaves, keeping what was heard of it', async () => {
    const t = setUp();
    t.final.emit('Tell me about tides.');
    t.answer.send('The moon pulls the sea. ');
    await settle();
    t.started.emit({ utteranceId: 1, piece: 0 });
    t.conversation.interrupt();
    await settle();
    expect(t.answer.aborted).toBe(true);
    expect(t.kept.at(-1)).toEqual({ role: 'assistant', text: 'The moon pulls the sea.', utteranceId: 1, interrupted: true });
  });

  it('says a refused microphone once, keeps the page standing and takes typing', () => {
    const t = setUp();
    t.conversation.microphoneRefused(false, 'The microphone was refused, so this conversation is typed.');
    expect(t.conversation.view()).toMatchObject({ typing: 'refused', problem: { kind: 'microphone' } });
  });

  it('stops listening to everything when stopped', () => {
    const t = setUp();
    t.conversation.stop();
    expect(t.log).toEqual(expect.arrayContaining(['recogniser off', 'player stop']));
    expect([t.interim.size, t.final.size, t.started.size, t.bargeIn.size, t.speakerFailed.size]).toEqual([0, 0, 0, 0, 0]);
  });

  it('asks the person to confirm what the door holds, shows the question, and sends their answer to the server', async () => {
    const t = setUp({ speech: false });
    t.final.emit('Clear my shopping list.');
    const action = { id: 'act-1', verb: 'lists.clear', question: 'Clear your shopping list? Say yes or no.', expiresAtMs: Date.now() + 60_000 };
    t.answer.send({ type: 'verb', event: { verb: 'lists.add', ok: true } });
    t.answer.send({ type: 'confirm', action });
    t.answer.send(action.question);
    t.answer.send(null);
    await settle();
    expect(t.conversation.view()).toMatchObject({ phase: 'confirming', pendingAction: { question: action.question, expiresAtMs: action.expiresAtMs } });
    expect(t.conversation.actor.getSnapshot().context.pendingAction?.patienceMs).toBeGreaterThan(55_000);
    t.conversation.confirm(true);
    expect(t.settled).toEqual([{ actionId: 'act-1', approve: true }]);
    expect(t.conversation.view()).toMatchObject({ phase: 'thinking', pendingAction: null });
    await settle();
    expect(t.conversation.view().phase).toBe('listening');
    expect(t.kept.at(-1)).toEqual({ role: 'assistant', text: 'Done.', utteranceId: 2 });
  });

  it('says so when the person’s answer could not reach the server', async () => {
    const t = setUp({ speech: false });
    t.failSettling();
    t.final.emit('Clear my shopping list.');
    t.answer.send({ type: 'confirm', action: { id: 'act-2', verb: 'lists.clear', question: 'Clear it?', expiresAtMs: Date.now() + 60_000 } });
    t.answer.send('Clear it?');
    t.answer.send(null);
    await settle();
    t.final.emit('yes');
    await settle();
    expect(t.kept.at(-1)?.text).toMatch(/couldn’t reach the server/);
  });

  it('announces, and hands over what it had yet to say', () => {
    const t = setUp({ speech: false });
    t.final.emit('Hi.');
    t.conversation.announce('Time to call the dentist.');
    expect(t.conversation.unsaid()).toEqual(['Time to call the dentist.']);
  });
});
