/**
 * The conversation machine's names: the effects and actors the app must provide (with
 * `.provide()`; tests plug fakes), the guards it decides by, and its delays. Nothing here has a
 * browser in it; an effect left unprovided throws, naming itself.
 */
import { and, fromCallback, or, sendParent, setup, stateIn } from 'xstate';
import { PENDING_ACTION_MS } from '../../../common/acting/protocol';
import { isSelfEcho } from '../hearing/selfEcho';
import { yieldingMachine } from '../hearing/yieldingMachine';
import type { SpeakRequest } from '../speaking/pieceHandover';
import type { ChatMessage, ConversationEvent, HeardWords, Line, RecogniserError } from '../../../common/conversation/events';
import type { ConversationContext, ConversationInput } from './context';
import { remembered } from './lines';
import { ANSWER_PATIENCE_MS } from './patience';
import { asksToWait } from './shortTurns';
import { answerOf } from './yesNo';

/** What `settleAction` is started with. */
export interface SettleRequest {
  actionId: string;
  /** True: the person said yes; false: no, something else, or nothing in time. */
  approve: boolean;
}

/** What the answer stream is started with. */
export interface AnswerRequest {
  utteranceId: number;
  /** The question's turn id: the same for every try of this answer, new for every question. */
  turnId: string;
  /** The settled conversation so far, then the question. */
  messages: ChatMessage[];
}

/**
 * An effect or actor the app forgot to provide. Failing loudly beats a conversation that silently
 * never speaks.
 */
function unprovided(name: string): never {
  throw new Error(`conversationMachine: '${name}' was not provided; supply it with machine.provide().`);
}

const transient: readonly RecogniserError[] = ['no-speech', 'aborted'];

function allSettled(context: ConversationContext): boolean {
  return context.settled.every(Boolean);
}

export const named = setup({
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
    /** Whether the person heard over the voice takes the turn (yieldingMachine.ts): its rulings come back as `yielding.*` events. */
    yielding: yieldingMachine.provide({
      actions: {
        duck: sendParent({ type: 'yielding.ducked' }),
        take: sendParent((_, { words }: { words: readonly HeardWords[] }) => ({ type: 'yielding.took', words })),
        carryOn: sendParent({ type: 'yielding.carriedOn' }),
        release: sendParent((_, { words }: { words: readonly HeardWords[] }) => ({ type: 'yielding.released', words })),
        pass: sendParent((_, { words }: { words: HeardWords }) => ({ type: 'yielding.passed', words })),
      },
    }),
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
    /** Duck the voice under the person while it is decided whose turn it is (true), or bring it back (false). */
    duckVoice: (_, _ducked: boolean) => unprovided('duckVoice'),
    /** The voice carried on past what the echo gate heard: it is to hear the next sound over it afresh. */
    listenAgain: () => unprovided('listenAgain'),
  },
  guards: {
    blank: ({ event }) => event.type === 'user.said' && event.text.trim() === '',
    selfEcho: ({ context, event }) =>
      event.type === 'user.said' && event.via === 'voice' && isSelfEcho(event.text, remembered(context)),
    current: ({ context, event }) => 'utteranceId' in event && event.utteranceId === context.utteranceId,
    heard: ({ context }) => context.typing === null && (!context.pushToTalk || context.talkHeld),
    pushToTalk: ({ context }) => context.pushToTalk,
    turnOver: ({ context }) => context.answerEnded && allSettled(context) && context.chunker.kept.length === 0,
    nothingYet: ({ context }) => context.answer === '' && !context.answerEnded,
    fresh: ({ context }) => context.lines.length === 0 && context.question === null,
    nonBlank: ({ event }) => event.type === 'user.interim' && event.text.trim() !== '',
    transientRecogniser: ({ event }) => event.type === 'recogniser.failed' && transient.includes(event.error),
    speechTurnedOff: ({ context, event }) => event.type === 'settings.changed' && event.speech === false && context.speech,
    pending: ({ context }) => context.pendingAction !== null,
    saidYes: ({ context, event }) => event.type === 'user.said' && answerOf(event.text, context.language) === 'yes',
    saidNo: ({ context, event }) => event.type === 'user.said' && answerOf(event.text, context.language) === 'no',
    heardOver: ({ context }) => context.heardOver,
    asksToWait: ({ context, event }) => event.type === 'user.said' && asksToWait(event.text, context.language),
    awaited: ({ context, event }) => (event.type === 'action.settled' || event.type === 'action.failed') && event.actionId === context.awaitedAction,
    /** The person is not talking, nor asked to be waited for: no words on the live line, the talk control not held. */
    quiet: ({ context }) => context.liveLine.trim() === '' && !context.talkHeld && !context.waiting,
    announcementWaiting: ({ context }) => context.announcements.length > 0,
    /** The bot's voice is sounding now. */
    voiceSounding: or([stateIn('#conversation.turn.answering.speaking'), stateIn('#conversation.turn.greeting.speaking'), stateIn('#conversation.turn.announcing.speaking')]),
    /**
     * Heard over the voice, the person's words can decide whose turn it is. Push to talk is a
     * deliberate gesture, and with no recogniser no words could decide: those take the turn at once.
     */
    yields: and([({ context }) => context.typing !== 'unsupported' && !context.pushToTalk, 'voiceSounding']),
  },
  delays: {
    /** How long a question may wait for the first word of its answer before the turn returns. */
    answerPatience: ANSWER_PATIENCE_MS,
    /** How long the person is given to answer a pending action, once asked (see `confirmPatienceMs`). */
    confirmPatience: ({ context }) => context.pendingAction?.patienceMs ?? PENDING_ACTION_MS,
  },
});
