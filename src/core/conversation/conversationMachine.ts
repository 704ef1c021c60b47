/**
 * The turn of a spoken conversation, with no browser in it: the machine names its effects
 * (`startRecogniser`, `speak`, `stopAudio`, `streamAnswer`…) and implements none of them.
 * `src/app/createConversation.ts` plugs the real adapters in with `.provide()`; tests plug fakes.
 *
 * Two regions run side by side:
 * - `turn`: `listening` → `answering.thinking` → `answering.speaking` → `listening`. The turn
 *   returns when the answer has ended AND every piece handed to the speaker has played out — a
 *   reply plays on after its text is complete. Barge-in leaves `answering` from either sub-state,
 *   which stops the invoked `streamAnswer` (aborting the request).
 * - `ear`: the recogniser, derived rather than commanded. It is on exactly when the person can be
 *   heard — microphone in use, not waiting on a hold, and no assistant audio audible (half-duplex:
 *   the browser recogniser opens its own capture that echo cancellation does not touch, so it
 *   would transcribe the assistant).
 */
import { and, assign, fromCallback, not, or, setup, stateIn } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { chunkAll, endText, pushText, startChunking } from '../speech/chunker';
import { isSelfEcho, rememberedUtterances } from '../speech/selfEcho';
import { resolveTalk } from '../speech/talk';
import type {
  ChatMessage,
  ConversationContext,
  ConversationEvent,
  ConversationInput,
  Line,
  Problem,
  RecogniserError,
  TypingReason,
  Voice,
} from './events';

/** Default patience for the first word of an answer, in milliseconds. */
export const ANSWER_PATIENCE_MS = 30_000;

/** What the answer stream is started with. */
export interface AnswerRequest {
  utteranceId: number;
  /** The settled conversation so far, then the question. */
  messages: ChatMessage[];
}

/** What the speaker is asked to voice: one piece of one utterance. */
export interface SpeakRequest {
  utteranceId: number;
  /** Index of the piece in its utterance; 0 is the opening piece. */
  piece: number;
  text: string;
  voice: Voice;
  /** Solver steps for this piece: the talk's `opening` for piece 0, its `steps` after. */
  steps: number;
}

/**
 * An effect or actor the app forgot to provide. Failing loudly beats a conversation that silently
 * never speaks.
 */
function unprovided(name: string): never {
  throw new Error(`conversationMachine: '${name}' was not provided; supply it with machine.provide().`);
}

const transient: readonly RecogniserError[] = ['no-speech', 'aborted'];

function typingFor(error: RecogniserError): TypingReason {
  if (error === 'not-allowed' || error === 'service-not-allowed') return 'refused';
  if (error === 'audio-capture') return 'no-microphone';
  return 'failed';
}

const recogniserReasons: Record<string, string> = {
  'not-allowed': 'The microphone was not allowed, so this conversation is typed. Allow it and unmute to talk.',
  'service-not-allowed': 'This browser would not start its speech recogniser, so this conversation is typed.',
  'audio-capture': 'No microphone could be opened, so this conversation is typed.',
  network: 'The browser’s speech recogniser could not reach its service, so this conversation is typed for now.',
  'language-not-supported': 'The browser’s speech recogniser does not offer this language, so this conversation is typed.',
};

function recogniserProblem(error: RecogniserError): Problem {
  return {
    kind: 'recogniser',
    reason: recogniserReasons[error] ?? `The speech recogniser failed (${error}), so this conversation is typed for now.`,
  };
}

/** The question and what has been written of its answer, settled into the written conversation. */
function settledLines(context: ConversationContext, interrupted: boolean): Line[] {
  const lines = [...context.lines];
  const { utteranceId, question, answer } = context;
  if (question !== null && !lines.some((l) => l.role === 'user' && l.utteranceId === utteranceId)) {
    lines.push({ role: 'user', text: question, utteranceId });
  }
  // Talked over, the line is what was heard of it — every piece that began to sound — unless none
  // had, when it is what had been written on the screen.
  const heard = context.pieces.filter((_, piece) => context.heard[piece] === true).join(' ');
  const spoken = (interrupted && heard !== '' ? heard : answer).trim();
  if (spoken !== '') {
    const line: Line = interrupted
      ? { role: 'assistant', text: spoken, utteranceId, interrupted: true }
      : { role: 'assistant', text: spoken, utteranceId };
    const at = lines.findIndex((l) => l.role === 'assistant' && l.utteranceId === utteranceId);
    if (at === -1) lines.push(line);
    else lines[at] = line;
  }
  return lines;
}

function remembered(context: ConversationContext): string[] {
  const said = context.pieces.join(' ').trim();
  return said === '' ? context.recentlySpoken : [...context.recentlySpoken, said].slice(-rememberedUtterances);
}

function allSettled(context: ConversationContext): boolean {
  return context.settled.every(Boolean);
}

const named = setup({
  types: {
    context: {} as ConversationContext,
    events: {} as ConversationEvent,
    input: {} as ConversationInput,
  },
  actors: {
    /**
     * Streams the answer: sends `answer.delta`, then `answer.done` or `answer.failed`, each with
     * the request's `utteranceId`. Stopping the actor must abort the request upstream.
     */
    streamAnswer: fromCallback<ConversationEvent, AnswerRequest>(() => unprovided('streamAnswer')),
  },
  actions: {
    /** Turn the browser recogniser on (with the conversation's language). */
    startRecogniser: () => unprovided('startRecogniser'),
    /** Stop it gracefully: a final transcript of words already heard may still arrive. */
    stopRecogniser: () => unprovided('stopRecogniser'),
    /** Voice one piece; the speaker answers with `audio.started`/`audio.ended` or `speaker.failed`. */
    speak: (_, _request: SpeakRequest) => unprovided('speak'),
    /** Silence the player within one render quantum and drop everything queued. */
    stopAudio: () => unprovided('stopAudio'),
    /** Abandon an utterance in the speaker: nothing of it may arrive afterwards. */
    cancelUtterance: (_, _params: { utteranceId: number }) => unprovided('cancelUtterance'),
    /** Keep a line the moment it is said (a conversation has no end to save it at). */
    saveLine: (_, _line: Line) => unprovided('saveLine'),
  },
  guards: {
    blank: ({ event }) => event.type === 'user.said' && event.text.trim() === '',
    selfEcho: ({ context, event }) =>
      event.type === 'user.said' && event.via === 'voice' && isSelfEcho(event.text, remembered(context)),
    current: ({ context, event }) => 'utteranceId' in event && event.utteranceId === context.utteranceId,
    heard: ({ context }) => context.typing === null && (!context.hold || context.held),
    holding: ({ context }) => context.hold,
    turnOver: ({ context }) => context.answerEnded && allSettled(context),
    nothingYet: ({ context }) => context.answer === '' && !context.answerEnded,
    fresh: ({ context }) => context.lines.length === 0 && context.question === null,
    nonBlank: ({ event }) => event.type === 'user.interim' && event.text.trim() !== '',
    transientRecogniser: ({ event }) => event.type === 'recogniser.failed' && transient.includes(event.error),
    speechTurnedOff: ({ context, event }) => event.type === 'settings.changed' && event.speech === false && context.speech,
  },
  delays: {
    /** How long a question may wait for the first word of its answer before the turn returns. */
    answerPatience: ANSWER_PATIENCE_MS,
  },
});

const { assign: set, enqueueActions: decide } = named;

/** The machine's own decisions: pure updates of its context and which named effects to run. */
const decisions = {
  /** A new utterance: the question is held on the live line and kept at once. */
  ask: decide(({ context, event, enqueue }) => {
    if (event.type !== 'user.said') return;
    const utteranceId = context.utteranceId + 1;
    const question = event.text.trim();
    enqueue.assign({
      utteranceId,
      question,
      liveLine: question,
      answer: '',
      chunker: startChunking(context.talk),
      pieces: [],
      settled: [],
      heard: [],
      answerEnded: false,
      problem: null,
    });
    enqueue({ type: 'saveLine', params: { role: 'user', text: question, utteranceId } });
  }),
  /** The greeting is an answer to nothing: the whole of it is known, so it is cut and spoken at once. */
  greet: decide(({ context, event, enqueue }) => {
    if (event.type !== 'bot.greets') return;
    const utteranceId = context.utteranceId + 1;
    const text = event.text.trim();
    const opened = { ...context, utteranceId, question: null, answer: text, chunker: startChunking(context.talk), pieces: [], settled: [], heard: [], answerEnded: true, problem: null };
    enqueue.assign({ ...opened, lines: settledLines(opened, false) });
    speakPieces(opened, chunkAll(text, context.talk), enqueue);
  }),
  takeDelta: decide(({ context, event, enqueue }) => {
    if (event.type !== 'answer.delta') return;
    const { state, pieces } = pushText(context.chunker, event.text);
    const first = context.answer === '';
    const answer = context.answer + event.text;
    enqueue.assign({ chunker: state, answer, ...(first ? { liveLine: '' } : {}) });
    enqueue.assign({ lines: ({ context: next }) => settledLines(next, false) });
    speakPieces(context, pieces, enqueue);
  }),
  endAnswer: decide(({ context, enqueue }) => {
    const { state, pieces } = endText(context.chunker);
    enqueue.assign({ chunker: state, answerEnded: true, liveLine: '' });
    enqueue.assign({ lines: ({ context: next }) => settledLines(next, false) });
    speakPieces(context, pieces, enqueue);
  }),
  failAnswer: set(({ context, event }) => {
    const reason = event.type === 'answer.failed' ? event.reason : 'The answer stopped.';
    const next = { ...context, answerEnded: true, liveLine: '' };
    return { ...next, lines: settledLines(next, false), problem: { kind: 'answer', reason } satisfies Problem };
  }),
  giveUpWaiting: decide(({ context, enqueue }) => {
    const seconds = Math.round(ANSWER_PATIENCE_MS / 1000);
    enqueue.assign({
      answerEnded: true,
      liveLine: '',
      lines: settledLines(context, false),
      problem: { kind: 'answer', reason: `No answer came within ${seconds} seconds; ask again.` },
    });
  }),
  hearPiece: set({
    heard: ({ context, event }) => (event.type === 'audio.started' ? context.heard.map((was, i) => was || i === event.piece) : context.heard),
  }),
  settlePiece: set({
    settled: ({ context, event }) =>
      event.type === 'audio.ended' ? context.settled.map((done, i) => done || i === event.piece) : context.settled,
  }),
  recoverSpeaker: decide(({ context, event, enqueue }) => {
    if (event.type !== 'speaker.failed') return;
    const problem: Problem = { kind: 'speaker', reason: event.reason };
    if (event.voice === 'endpoint' && context.speech) {
      enqueue.assign({ voice: 'device', problem });
      context.pieces.forEach((text, piece) => {
        if (piece < event.piece || context.settled[piece] === true) return;
        enqueue({ type: 'speak', params: request(context, piece, text, 'device') });
      });
      return;
    }
    enqueue.assign({ problem, settled: context.settled.map((done, i) => done || i === event.piece) });
  }),
  bargeIn: decide(({ context, enqueue }) => {
    if (context.pieces.length > 0) enqueue('stopAudio');
    enqueue({ type: 'cancelUtterance', params: { utteranceId: context.utteranceId } });
    const lines = settledLines(context, true);
    const said = lines.find((l) => l.role === 'assistant' && l.utteranceId === context.utteranceId);
    if (said) enqueue({ type: 'saveLine', params: said });
    enqueue.assign({
      lines,
      liveLine: '',
      question: null,
      recentlySpoken: remembered(context),
      pieces: [],
      settled: [],
      heard: [],
      answerEnded: true,
    });
  }),
  showInterim: set({ liveLine: ({ event }) => (event.type === 'user.interim' ? event.text : '') }),
  finishTurn: decide(({ context, enqueue }) => {
    const said = context.lines.find((l) => l.role === 'assistant' && l.utteranceId === context.utteranceId);
    if (said) enqueue({ type: 'saveLine', params: said });
    enqueue.assign({ question: null, recentlySpoken: remembered(context), pieces: [], settled: [], heard: [] });
  }),
  silence: decide(({ context, enqueue }) => {
    if (context.pieces.length > 0) enqueue('stopAudio');
    enqueue({ type: 'cancelUtterance', params: { utteranceId: context.utteranceId } });
    enqueue.assign({ settled: context.settled.map(() => true) });
  }),
  applySettings: set(({ context, event }) => {
    if (event.type !== 'settings.changed') return {};
    const hold = event.hold ?? context.hold;
    return { speech: event.speech ?? context.speech, hold, held: hold && context.held };
  }),
};

/**
 * The recogniser may run: the microphone is the way in (and held, in push-and-hold), and the turn is
 * the person's, or an answer or greeting has not yet made a sound — never while assistant audio is audible.
 */
const listenable = and([
  'heard',
  or([stateIn('#conversation.turn.listening'), stateIn('#conversation.turn.answering.thinking'), stateIn('#conversation.turn.greeting.waiting')]),
]);

export const conversationMachine = named.extend({ actions: decisions }).createMachine({
  id: 'conversation',
  type: 'parallel',
  context: ({ input }) => {
    const talk = resolveTalk(input.talk);
    return {
      utteranceId: Math.max(0, ...(input.lines ?? []).map((line) => line.utteranceId)),
      liveLine: '',
      question: null,
      answer: '',
      lines: [...(input.lines ?? [])],
      typing: !input.recogniser ? 'unsupported' : input.muted === true ? 'muted' : null,
      hold: input.hold ?? false,
      held: false,
      speech: input.speech ?? true,
      voice: input.voice ?? 'device',
      talk,
      chunker: startChunking(talk),
      pieces: [],
      settled: [],
      heard: [],
      answerEnded: false,
      recentlySpoken: [],
      problem: null,
    };
  },
  on: {
    'mic.mute': {
      guard: ({ context }) => context.typing !== 'unsupported',
      actions: assign({ typing: 'muted' }),
    },
    'mic.unmute': {
      guard: ({ context }) => context.typing !== 'unsupported',
      actions: assign({ typing: null, problem: ({ context }) => (context.typing === null ? context.problem : null) }),
    },
    'mic.refused': {
      guard: ({ context }) => context.typing !== 'unsupported',
      actions: assign(({ event }) => ({
        typing: (event.missing ? 'no-microphone' : 'refused'),
        problem: { kind: 'microphone', reason: event.reason } satisfies Problem,
      })),
    },
    'recogniser.failed': {
      guard: not('transientRecogniser'),
      actions: assign(({ event }) => ({ typing: typingFor(event.error), problem: recogniserProblem(event.error) })),
    },
    'talk.release': { actions: assign({ held: false }) },
    'settings.changed': { actions: 'applySettings' },
  },
  states: {
    turn: {
      initial: 'listening',
      states: {
        listening: {
          on: {
            'user.interim': { actions: assign({ liveLine: ({ event }) => event.text }) },
            'user.said': [
              { guard: 'blank' },
              { guard: 'selfEcho', actions: assign({ liveLine: '' }) },
              { target: 'answering', actions: 'ask' },
            ],
            'talk.press': { actions: assign({ held: ({ context }) => context.hold }) },
            'bot.greets': { guard: 'fresh', target: 'greeting', actions: 'greet' },
          },
        },
        greeting: {
          always: { guard: 'turnOver', target: 'listening', actions: 'finishTurn' },
          on: {
            'audio.started': { guard: 'current', actions: 'hearPiece' },
            'audio.ended': { guard: 'current', actions: 'settlePiece' },
            'speaker.failed': { guard: 'current', actions: 'recoverSpeaker' },
            'user.interrupted': { target: 'listening', actions: 'bargeIn' },
            'talk.press': { guard: 'holding', target: 'listening', actions: ['bargeIn', assign({ held: true })] },
            'user.said': [{ guard: 'blank' }, { guard: 'selfEcho' }, { target: 'answering', actions: ['bargeIn', 'ask'] }],
            'settings.changed': { guard: 'speechTurnedOff', target: 'listening', actions: ['silence', 'applySettings', 'finishTurn'] },
          },
          initial: 'waiting',
          states: {
            // Until its first sound the person may still be heard, as while an answer is thought about.
            waiting: {
              on: {
                'user.interim': { guard: 'nonBlank', target: '#conversation.turn.listening', actions: ['bargeIn', 'showInterim'] },
                'audio.started': { guard: 'current', target: 'speaking', actions: 'hearPiece' },
              },
            },
            speaking: {},
          },
        },
        answering: {
          initial: 'thinking',
          invoke: {
            src: 'streamAnswer',
            input: ({ context }): AnswerRequest => ({
              utteranceId: context.utteranceId,
              messages: [
                ...context.lines.map((l): ChatMessage => ({ role: l.role, content: l.text })),
                { role: 'user', content: context.question ?? '' },
              ],
            }),
          },
          always: { guard: 'turnOver', target: 'listening', actions: 'finishTurn' },
          on: {
            'answer.delta': { guard: 'current', actions: 'takeDelta' },
            'answer.done': { guard: 'current', actions: 'endAnswer' },
            'answer.failed': { guard: 'current', actions: 'failAnswer' },
            'audio.started': { guard: 'current', actions: 'hearPiece' },
            'audio.ended': { guard: 'current', actions: 'settlePiece' },
            'speaker.failed': { guard: 'current', actions: 'recoverSpeaker' },
            'user.interrupted': { target: 'listening', actions: 'bargeIn' },
            'talk.press': { guard: 'holding', target: 'listening', actions: ['bargeIn', assign({ held: true })] },
            'user.said': [
              { guard: 'blank' },
              { guard: 'selfEcho' },
              { target: 'answering', reenter: true, actions: ['bargeIn', 'ask'] },
            ],
            'settings.changed': { guard: 'speechTurnedOff', target: '.thinking', actions: ['silence', 'applySettings'] },
          },
          states: {
            thinking: {
              on: {
                'user.interim': { guard: 'nonBlank', target: '#conversation.turn.listening', actions: ['bargeIn', 'showInterim'] },
                'audio.started': { guard: 'current', target: 'speaking', actions: 'hearPiece' },
              },
              after: {
                answerPatience: { guard: 'nothingYet', actions: 'giveUpWaiting' },
              },
            },
            speaking: {},
          },
        },
      },
    },
    ear: {
      initial: 'off',
      states: {
        off: {
          always: {
            guard: listenable,
            target: 'on',
          },
        },
        on: {
          initial: 'running',
          exit: 'stopRecogniser',
          always: {
            guard: not(listenable),
            target: 'off',
          },
          states: {
            running: {
              entry: 'startRecogniser',
              on: {
                'recogniser.ended': { target: 'running', reenter: true },
                'recogniser.failed': { guard: 'transientRecogniser', target: 'running', reenter: true },
              },
            },
          },
        },
      },
    },
  },
});

function request(context: ConversationContext, piece: number, text: string, voice: Voice): SpeakRequest {
  return {
    utteranceId: context.utteranceId,
    piece,
    text,
    voice,
    steps: piece === 0 ? context.talk.opening : context.talk.steps,
  };
}

type Enqueue = Parameters<Parameters<typeof decide>[0]>[0]['enqueue'];

function speakPieces(context: ConversationContext, pieces: readonly string[], enqueue: Enqueue): void {
  if (!context.speech || pieces.length === 0) return;
  const start = context.pieces.length;
  enqueue.assign({
    pieces: [...context.pieces, ...pieces],
    settled: [...context.settled, ...pieces.map(() => false)],
    heard: [...context.heard, ...pieces.map(() => false)],
  });
  pieces.forEach((text, i) => {
    enqueue({ type: 'speak', params: request(context, start + i, text, context.voice) });
  });
}

export type ConversationMachine = typeof conversationMachine;
export type ConversationActor = ActorRefFrom<ConversationMachine>;
export type ConversationSnapshot = SnapshotFrom<ConversationMachine>;
