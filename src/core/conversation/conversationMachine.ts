/**
 * The turn of a spoken conversation, with no browser in it: the machine names its effects
 * (`startRecogniser`, `speak`, `stopAudio`, `streamAnswer`…) and implements none of them.
 * `src/app/createConversation.ts` plugs the real adapters in with `.provide()`; tests plug fakes.
 *
 * Two regions run side by side:
 * - `turn`: `listening` → `answering.thinking` → `answering.speaking` → `listening`. The turn
 *   returns when the answer has ended AND every piece handed to the speaker has played out — a
 *   reply plays on after its text is complete. For the on-device voice, once it has said its pace
 *   (`voice.paced`), the pieces after the opening are cut only as it is ready for them, each to
 *   what it can make before the audio ahead of it has played out (src/core/speech/pace.ts).
 *   Barge-in leaves `answering` from either sub-state, which stops the invoked `streamAnswer`
 *   (aborting the request).
 *   An answer that asks the person to confirm a verb (`answer.confirm`) returns the turn to
 *   `confirming` instead: the next thing the person says (or presses) is heard as a yes, a no or
 *   something else (`yesNo.ts`); a yes or a no is sent by `settleAction` and the server's sentence
 *   is said in `announcing`; something else refuses the action and is taken as a new question.
 *   Nothing but the person's own yes approves: not a barge-in, not waiting (`confirmPatience`).
 *   `announcing` also says what the bot brings up by itself (`bot.announces`), only once the turn
 *   is the person's and they are quiet; until then it waits in the context.
 * - `ear`: the recogniser, derived rather than commanded. It is on exactly when the person can be
 *   heard — microphone in use, not waiting on a hold, and no assistant audio audible (half-duplex:
 *   the browser recogniser opens its own capture that echo cancellation does not touch, so it
 *   would transcribe the assistant).
 */
import { and, assign, fromCallback, not, or, setup, stateIn } from 'xstate';
import { PENDING_ACTION_MS } from '../acting/protocol';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { cutPiece, dropHeld, endText, pushText, startChunking } from '../speech/chunker';
import { budgetChars, paceAfter, PIECES_AHEAD } from '../speech/pace';
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
import { answerOf } from './yesNo';

/** Default patience for the first word of an answer, in milliseconds. */
export const ANSWER_PATIENCE_MS = 30_000;

/**
 * The least time a person is given to answer "…? Say yes or no.", in ms. The page's clock may
 * disagree with the server's, and the server decides when an action has expired (a late yes is
 * answered `expired`), so a clock running ahead must not cut the person off before they can speak.
 */
export const CONFIRM_PATIENCE_FLOOR_MS = 10_000;

/**
 * How long the person is given to answer a pending action received at `nowMs`: until it expires,
 * never more than `PENDING_ACTION_MS`, never less than `CONFIRM_PATIENCE_FLOOR_MS`.
 */
export function confirmPatienceMs(expiresAtMs: number, nowMs: number): number {
  return Math.min(PENDING_ACTION_MS, Math.max(CONFIRM_PATIENCE_FLOOR_MS, expiresAtMs - nowMs));
}

/** What `settleAction` is started with. */
export interface SettleRequest {
  actionId: string;
  /** True: the person said yes; false: no, something else, or nothing in time. */
  approve: boolean;
}

/** The id of the child that settles `actionId`. */
const settlerOf = (actionId: string) => `settle:${actionId}`;

/** What the answer stream is started with. */
export interface AnswerRequest {
  utteranceId: number;
  /** The question's turn id: the same for every try of this answer, new for every question. */
  turnId: string;
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
  /** The fewest steps it may be made with if it would otherwise be late: the talk's `floor`. */
  floor: number;
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

/**
 * What may still come back as echo once this utterance is over: it, and the utterances before it —
 * unless it answered a question, when what was said before that question is stale. Echo follows the
 * assistant's audio within seconds; once the person has been heard and answered, the words before
 * are words they may fairly repeat ("Clear my shopping list." after "Clear your shopping list?").
 */
function remembered(context: ConversationContext): string[] {
  const said = context.pieces.join(' ').trim();
  const earlier = context.question === null ? context.recentlySpoken : [];
  return said === '' ? context.recentlySpoken : [...earlier, said].slice(-rememberedUtterances);
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
    /**
     * Approves or refuses a pending action under the person's session: sends `action.settled` with
     * the server's outcome and sentence, or `action.failed` with a sentence that can be spoken. It
     * runs to its end whatever the turn does meanwhile (a yes is not taken back by talking on).
     */
    settleAction: fromCallback<ConversationEvent, SettleRequest>(() => unprovided('settleAction')),
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
    turnOver: ({ context }) => context.answerEnded && allSettled(context) && context.chunker.held.length === 0,
    nothingYet: ({ context }) => context.answer === '' && !context.answerEnded,
    fresh: ({ context }) => context.lines.length === 0 && context.question === null,
    nonBlank: ({ event }) => event.type === 'user.interim' && event.text.trim() !== '',
    transientRecogniser: ({ event }) => event.type === 'recogniser.failed' && transient.includes(event.error),
    speechTurnedOff: ({ context, event }) => event.type === 'settings.changed' && event.speech === false && context.speech,
    pending: ({ context }) => context.pendingAction !== null,
    saidYes: ({ context, event }) => event.type === 'user.said' && answerOf(event.text, context.language) === 'yes',
    saidNo: ({ context, event }) => event.type === 'user.said' && answerOf(event.text, context.language) === 'no',
    awaited: ({ context, event }) => (event.type === 'action.settled' || event.type === 'action.failed') && event.actionId === context.awaitedAction,
    /** The person is not talking: no words on the live line, the talk control not held. */
    quiet: ({ context }) => context.liveLine.trim() === '' && !context.held,
    announcementWaiting: ({ context }) => context.announcements.length > 0,
  },
  delays: {
    /** How long a question may wait for the first word of its answer before the turn returns. */
    answerPatience: ANSWER_PATIENCE_MS,
    /** How long the person is given to answer a pending action, once asked (see `confirmPatienceMs`). */
    confirmPatience: ({ context }) => context.pendingAction?.patienceMs ?? PENDING_ACTION_MS,
  },
});

const { assign: set, enqueueActions: decide } = named;

/** Sends the person's answer for the pending action; with `sayIt`, its outcome is said when it comes. */
function settle(approve: boolean, sayIt: boolean) {
  return decide(({ context, enqueue }) => {
    const action = context.pendingAction;
    if (action === null) return;
    enqueue.spawnChild('settleAction', { id: settlerOf(action.id), input: { actionId: action.id, approve } });
    enqueue.assign({ pendingAction: null, awaitedAction: sayIt ? action.id : context.awaitedAction });
  });
}

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
      turnId: event.turnId,
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
    say(context, event.text, enqueue);
  }),
  /** What waited to be said, said now: the oldest first, the rest wait their turn. */
  announceNext: decide(({ context, enqueue }) => {
    const [next, ...rest] = context.announcements;
    if (next === undefined) return;
    enqueue.assign({ announcements: rest });
    say({ ...context, announcements: rest }, next, enqueue);
  }),
  /** Waits to be said until the turn is the person's and they are quiet. */
  queueAnnouncement: set({
    announcements: ({ context, event }) =>
      event.type === 'bot.announces' && event.text.trim() !== '' ? [...context.announcements, event.text.trim()] : context.announcements,
  }),
  /** The door asks the person to confirm a verb: it waits for their answer once the answer has been said. */
  keepPending: set({
    pendingAction: ({ context, event }) =>
      event.type === 'answer.confirm' ? { ...event.action, patienceMs: confirmPatienceMs(event.action.expiresAtMs, event.atMs) } : context.pendingAction,
  }),
  /** The person's yes: the pending action is approved, and its outcome said when it comes. */
  approve: settle(true, true),
  /** The person's no (or no answer in time): the pending action is refused, and the outcome said. */
  refuse: settle(false, true),
  /** The person went on to something else: the action is refused, and that something is answered instead. */
  refuseQuietly: settle(false, false),
  /** The server's sentence for the awaited action, said now as the answer to the person's yes or no. */
  sayOutcome: decide(({ context, event, enqueue }) => {
    if (event.type !== 'action.settled' && event.type !== 'action.failed') return;
    enqueue.stopChild(settlerOf(event.actionId));
    const next = { ...context, awaitedAction: null };
    enqueue.assign({ awaitedAction: null });
    // A yes or a no that was said is the question this sentence answers; a press or a timeout is not.
    say(next, event.sentence, enqueue, next.question !== null);
  }),
  /** The outcome of the awaited action came while the turn was elsewhere: it waits to be said. */
  queueOutcome: decide(({ context, event, enqueue }) => {
    if (event.type !== 'action.settled' && event.type !== 'action.failed') return;
    enqueue.stopChild(settlerOf(event.actionId));
    enqueue.assign({ awaitedAction: null, announcements: [...context.announcements, event.sentence] });
  }),
  /** An outcome nobody waits to hear (the person went on to something else): its settler is let go. */
  dropOutcome: decide(({ event, enqueue }) => {
    if (event.type === 'action.settled' || event.type === 'action.failed') enqueue.stopChild(settlerOf(event.actionId));
  }),
  takeDelta: decide(({ context, event, enqueue }) => {
    if (event.type !== 'answer.delta') return;
    const { state, pieces } = pushText(context.chunker, event.text, { hold: paced(context) });
    const first = context.answer === '';
    const answer = context.answer + event.text;
    enqueue.assign({ answer, ...(first ? { liveLine: '' } : {}) });
    enqueue.assign({ lines: ({ context: next }) => settledLines(next, false) });
    speakOnward({ ...context, chunker: state }, pieces, event.atMs, enqueue);
  }),
  endAnswer: decide(({ context, event, enqueue }) => {
    const { state, pieces } = endText(context.chunker, { hold: paced(context) });
    enqueue.assign({ answerEnded: true, liveLine: '' });
    enqueue.assign({ lines: ({ context: next }) => settledLines(next, false) });
    speakOnward({ ...context, chunker: state }, pieces, event.type === 'answer.done' ? event.atMs : undefined, enqueue);
  }),
  // The sentences already held are still said, as the voice is ready for them; what was
  // mid-sentence is written only.
  failAnswer: decide(({ context, event, enqueue }) => {
    const reason = event.type === 'answer.failed' ? event.reason : 'The answer stopped.';
    const next = { ...context, answerEnded: true, liveLine: '' };
    enqueue.assign({ answerEnded: true, liveLine: '', lines: settledLines(next, false), problem: { kind: 'answer', reason } satisfies Problem });
    if (!paced(context)) enqueue.assign({ chunker: dropHeld(context.chunker) });
  }),
  /** The on-device voice's pace: kept, and the next piece cut for it when it is ready for one. */
  takePace: decide(({ context, event, enqueue }) => {
    if (event.type !== 'voice.paced') return;
    enqueue.assign({ pace: event.pace });
    speakOnward({ ...context, pace: event.pace }, [], event.pace.atMs, enqueue);
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
  holdTalk: set({ held: true }),
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
      chunker: dropHeld(context.chunker),
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
    enqueue.assign({ settled: context.settled.map(() => true), chunker: dropHeld(context.chunker) });
  }),
  applySettings: set(({ context, event }) => {
    if (event.type !== 'settings.changed') return {};
    const hold = event.hold ?? context.hold;
    return { speech: event.speech ?? context.speech, hold, held: hold && context.held, language: event.language ?? context.language };
  }),
};

/**
 * The recogniser may run: the microphone is the way in (and held, in push-and-hold), and the turn is
 * the person's, or an answer or greeting has not yet made a sound — never while assistant audio is audible.
 */
const listenable = and([
  'heard',
  or([
    stateIn('#conversation.turn.listening'),
    stateIn('#conversation.turn.answering.thinking'),
    stateIn('#conversation.turn.greeting.waiting'),
    stateIn('#conversation.turn.announcing.waiting'),
    stateIn('#conversation.turn.confirming'),
  ]),
]);

/**
 * Something the bot says that is known whole (a greeting, a notice, an action's outcome): spoken
 * piece by piece, talked over like an answer, and the turn returns once it has played out.
 */
const saying = {
  always: { guard: 'turnOver', target: 'listening', actions: 'finishTurn' },
  on: {
    'audio.started': { guard: 'current', actions: 'hearPiece' },
    'audio.ended': { guard: 'current', actions: 'settlePiece' },
    'speaker.failed': { guard: 'current', actions: 'recoverSpeaker' },
    'user.interrupted': { target: 'listening', actions: 'bargeIn' },
    'talk.press': { guard: 'holding', target: 'listening', actions: ['bargeIn', 'holdTalk'] },
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
} as const;

export const conversationMachine = named.extend({ actions: decisions }).createMachine({
  id: 'conversation',
  type: 'parallel',
  context: ({ input }) => {
    const talk = resolveTalk(input.talk);
    return {
      utteranceId: Math.max(0, ...(input.lines ?? []).map((line) => line.utteranceId)),
      liveLine: '',
      question: null,
      turnId: '',
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
      pace: null,
      language: input.language ?? 'en',
      pendingAction: null,
      awaitedAction: null,
      announcements: [],
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
    'voice.paced': { actions: 'takePace' },
  },
  states: {
    turn: {
      initial: 'listening',
      on: {
        'bot.announces': { actions: 'queueAnnouncement' },
        'action.settled': [{ guard: 'awaited', actions: 'queueOutcome' }, { actions: 'dropOutcome' }],
        'action.failed': [{ guard: 'awaited', actions: 'queueOutcome' }, { actions: 'dropOutcome' }],
      },
      states: {
        listening: {
          always: { guard: and(['announcementWaiting', 'quiet']), target: 'announcing', actions: 'announceNext' },
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
        greeting: saying,
        announcing: saying,
        answering: {
          initial: 'thinking',
          invoke: {
            src: 'streamAnswer',
            input: ({ context }): AnswerRequest => ({
              utteranceId: context.utteranceId,
              turnId: context.turnId,
              messages: [
                ...context.lines.map((l): ChatMessage => ({ role: l.role, content: l.text })),
                { role: 'user', content: context.question ?? '' },
              ],
            }),
          },
          always: [
            { guard: and(['turnOver', 'pending']), target: 'confirming', actions: 'finishTurn' },
            { guard: 'turnOver', target: 'listening', actions: 'finishTurn' },
          ],
          on: {
            'answer.delta': { guard: 'current', actions: 'takeDelta' },
            'answer.done': { guard: 'current', actions: 'endAnswer' },
            'answer.failed': { guard: 'current', actions: 'failAnswer' },
            'answer.confirm': { guard: 'current', actions: 'keepPending' },
            'audio.started': { guard: 'current', actions: 'hearPiece' },
            'audio.ended': { guard: 'current', actions: 'settlePiece' },
            'speaker.failed': { guard: 'current', actions: 'recoverSpeaker' },
            // Talking over the question approves nothing: the action waits for the person's answer.
            'user.interrupted': [
              { guard: 'pending', target: 'confirming', actions: 'bargeIn' },
              { target: 'listening', actions: 'bargeIn' },
            ],
            'talk.press': [
              { guard: and(['holding', 'pending']), target: 'confirming', actions: ['bargeIn', 'holdTalk'] },
              { guard: 'holding', target: 'listening', actions: ['bargeIn', 'holdTalk'] },
            ],
            'user.said': [
              { guard: 'blank' },
              { guard: 'selfEcho' },
              // Said over the question (or before it) while the action waits: it is the answer to it.
              { guard: and(['pending', 'saidYes']), target: 'confirming.settling', actions: ['bargeIn', 'ask', 'approve'] },
              { guard: and(['pending', 'saidNo']), target: 'confirming.settling', actions: ['bargeIn', 'ask', 'refuse'] },
              { guard: 'pending', target: 'answering', reenter: true, actions: ['bargeIn', 'refuseQuietly', 'ask'] },
              { target: 'answering', reenter: true, actions: ['bargeIn', 'ask'] },
            ],
            'action.yes': { guard: 'pending', target: 'confirming.settling', actions: ['bargeIn', 'approve'] },
            'action.no': { guard: 'pending', target: 'confirming.settling', actions: ['bargeIn', 'refuse'] },
            'settings.changed': { guard: 'speechTurnedOff', target: '.thinking', actions: ['silence', 'applySettings'] },
          },
          states: {
            thinking: {
              on: {
                'user.interim': [
                  { guard: and(['nonBlank', 'pending']), target: '#conversation.turn.confirming', actions: ['bargeIn', 'showInterim'] },
                  { guard: 'nonBlank', target: '#conversation.turn.listening', actions: ['bargeIn', 'showInterim'] },
                ],
                'audio.started': { guard: 'current', target: 'speaking', actions: 'hearPiece' },
              },
              after: {
                answerPatience: { guard: 'nothingYet', actions: 'giveUpWaiting' },
              },
            },
            speaking: {},
          },
        },
        confirming: {
          initial: 'asking',
          on: {
            'user.interim': { actions: assign({ liveLine: ({ event }) => event.text }) },
            'talk.press': { actions: assign({ held: ({ context }) => context.hold }) },
          },
          states: {
            asking: {
              on: {
                'user.said': [
                  { guard: 'blank' },
                  { guard: 'selfEcho', actions: assign({ liveLine: '' }) },
                  // A yes or a no is kept as the person's line, and its outcome said as the answer to it.
                  { guard: 'saidYes', target: 'settling', actions: ['ask', 'approve'] },
                  { guard: 'saidNo', target: 'settling', actions: ['ask', 'refuse'] },
                  // Anything else is never a yes: the action is refused, and what was said is a new question.
                  { target: '#conversation.turn.answering', actions: ['refuseQuietly', 'ask'] },
                ],
                'action.yes': { target: 'settling', actions: 'approve' },
                'action.no': { target: 'settling', actions: 'refuse' },
              },
              after: {
                confirmPatience: { target: 'settling', actions: 'refuse' },
              },
            },
            // The answer is on its way to the server; its outcome is said as soon as it comes.
            settling: {
              on: {
                'action.settled': { guard: 'awaited', target: '#conversation.turn.announcing', actions: 'sayOutcome' },
                'action.failed': { guard: 'awaited', target: '#conversation.turn.announcing', actions: 'sayOutcome' },
                // The person goes on: that is answered, and the outcome waits its turn to be said.
                'user.said': [{ guard: 'blank' }, { guard: 'selfEcho', actions: assign({ liveLine: '' }) }, { target: '#conversation.turn.answering', actions: 'ask' }],
              },
            },
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
    steps: stepsOf(context, piece),
    floor: context.talk.floor,
  };
}

function stepsOf(context: ConversationContext, piece: number): number {
  return piece === 0 ? context.talk.opening : context.talk.steps;
}

/**
 * Whether later pieces wait to be cut until the voice is ready for them: the on-device voice speaks
 * and has said its pace. Otherwise (the endpoint voice, which streams as it reads; speech off; no
 * pace yet) they are packed as the text comes.
 */
function paced(context: ConversationContext): boolean {
  return context.speech && context.voice === 'device' && context.pace !== null;
}

type Enqueue = Parameters<Parameters<typeof decide>[0]>[0]['enqueue'];

/**
 * Says `text`, known whole, as an answer: cut and handed to the speaker at once, and shown. It is
 * a new utterance (an answer to nothing), or with `answering` the answer to the question held.
 */
function say(context: ConversationContext, text: string, enqueue: Enqueue, answering = false): void {
  const utteranceId = answering ? context.utteranceId : context.utteranceId + 1;
  const said = text.trim();
  const opened = {
    ...context,
    utteranceId,
    question: answering ? context.question : null,
    // The person's yes or no leaves the live line as its answer is said, as a question does.
    liveLine: answering ? '' : context.liveLine,
    answer: said,
    pieces: [],
    settled: [],
    heard: [],
    answerEnded: true,
    problem: null,
  };
  enqueue.assign({ ...opened, lines: settledLines(opened, false) });
  const hold = paced(context);
  const pushed = pushText(startChunking(context.talk), said, { hold });
  const ended = endText(pushed.state, { hold });
  speakOnward({ ...opened, chunker: ended.state }, [...pushed.pieces, ...ended.pieces], undefined, enqueue);
}

/**
 * Hands the speaker `ready` (the opening, or pieces packed as the text came), then, for a voice
 * that keeps its pace, cuts more from the sentences held while the voice has fewer than
 * `PIECES_AHEAD` to make, each to what it can make before the audio queued ahead of it has played
 * out (`budgetChars`), at `atMs` or when the voice last said. The pace kept is projected over the
 * pieces handed over until the voice says its own.
 */
function speakOnward(context: ConversationContext, ready: readonly string[], atMs: number | undefined, enqueue: Enqueue): void {
  const { pace } = context;
  if (!paced(context) || pace === null) {
    enqueue.assign({ chunker: context.chunker });
    speakPieces(context, ready, enqueue);
    return;
  }
  const nowMs = Math.max(pace.atMs, atMs ?? pace.atMs);
  const pieces = [...ready];
  const stepsAt = (i: number) => stepsOf(context, context.pieces.length + i);
  let ahead = pieces.reduce((projected, text, i) => paceAfter(projected, text.length, stepsAt(i), nowMs), pace);
  let { chunker } = context;
  while (ahead.making < PIECES_AHEAD) {
    const next = cutPiece(chunker, budgetChars(ahead, context.talk.steps, nowMs));
    if (next.piece === null) break;
    chunker = next.state;
    ahead = paceAfter(ahead, next.piece.length, stepsAt(pieces.length), nowMs);
    pieces.push(next.piece);
  }
  enqueue.assign({ chunker, pace: ahead });
  speakPieces(context, pieces, enqueue);
}


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
