/**
 * The chart of a spoken conversation, with no browser in it: which state the turn is in, and when
 * the recogniser runs. Its names — the effects and actors `src/app/createConversation.ts` provides
 * with `.provide()` (tests plug fakes), its guards and delays — are in `machineSetup.ts`; what it
 * does on each transition is in `decisions.ts`.
 */
import { and, assign, not, or, raise, sendTo, stateIn } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { startChunking } from '../../../common/speaking/chunker';
import { resolveTalk } from '../../../common/talk';
import type { PageSay, PageWordKey } from '../../../common/pageWords';
import { writtenWithChoices } from '../../../common/conversation/choices';
import type { ChatMessage, Problem, RecogniserError, TypingReason } from '../../../common/conversation/events';
import { HEARING } from '../hearing/tuning';
import { NOTHING_HELD } from '../speaking/choicesAloud';
import { decisions } from './decisions';
import { remembered } from './lines';
import { named } from './machineSetup';
import type { AnswerRequest } from './machineSetup';

function typingFor(error: RecogniserError): TypingReason {
  if (error === 'not-allowed' || error === 'service-not-allowed') return 'refused';
  if (error === 'audio-capture') return 'no-microphone';
  return 'failed';
}

const recogniserReasons: Readonly<Record<string, PageWordKey>> = {
  'not-allowed': 'page-hearing.recogniser-not-allowed',
  'service-not-allowed': 'page-hearing.recogniser-service-not-allowed',
  'audio-capture': 'page-hearing.recogniser-audio-capture',
  network: 'page-hearing.recogniser-network',
  'language-not-supported': 'page-hearing.recogniser-language-not-supported',
};

function recogniserProblem(error: RecogniserError, say: PageSay): Problem {
  const known = recogniserReasons[error];
  return { kind: 'recogniser', reason: known === undefined ? say('page-hearing.recogniser-failed', { error }) : say(known) };
}

/**
 * The recogniser may run: the microphone is the way in (and held down, in push to talk), and the turn is
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
    // The person was heard over the voice: their words decide whether the turn is theirs.
    'heardOver',
  ]),
]);

/**
 * The bot's audio while it answers or says something: a piece began to sound, played out, or
 * could not be voiced — the same handling in `answering` and in `saying`.
 */
const hearingAudio = {
  'audio.started': { guard: 'current', actions: 'markPlayed' },
  'audio.ended': { guard: 'current', actions: 'settlePiece' },
  'speaker.failed': { guard: 'current', actions: 'recoverSpeaker' },
} as const;

/** The first sound of what the bot answers or says: from waiting to speaking. */
const firstSound = { guard: 'current', target: 'speaking', actions: 'markPlayed' } as const;

/**
 * Something the bot says that is known whole (a greeting, a notice, an action's outcome): spoken
 * piece by piece, talked over like an answer, and the turn returns once it has played out.
 */
const saying = {
  always: [
    // A run's question, said: the person's next words are its yes or no.
    { guard: and(['turnOver', 'pending']), target: 'confirming', actions: 'finishTurn' },
    { guard: 'turnOver', target: 'listening', actions: 'finishTurn' },
  ],
  on: {
    ...hearingAudio,
    'user.interrupted': { target: 'listening', actions: 'bargeIn' },
    'talk.press': { guard: 'pushToTalk', target: 'listening', actions: ['bargeIn', 'pressTalk'] },
    'user.said': [
      { guard: 'blank' },
      { guard: 'selfEcho' },
      { guard: 'asksToWait', target: 'listening', actions: ['bargeIn', 'waitForMore'] },
      { target: 'answering', actions: ['bargeIn', 'ask'] },
    ],
    'settings.changed': { guard: 'speechTurnedOff', target: 'listening', actions: ['silence', 'applySettings', 'finishTurn'] },
  },
  initial: 'waiting',
  states: {
    // Until its first sound the person may still be heard, as while an answer is thought about.
    waiting: {
      on: {
        'user.interim': { guard: 'nonBlank', target: '#conversation.turn.listening', actions: ['bargeIn', 'showInterim'] },
        'audio.started': firstSound,
      },
    },
    speaking: { exit: 'releaseYielding' },
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
      pushToTalk: input.pushToTalk ?? false,
      talkHeld: false,
      waiting: false,
      heardOver: false,
      speech: input.speech ?? true,
      voice: input.voice ?? 'device',
      talk,
      chunker: startChunking(talk),
      listHold: NOTHING_HELD,
      pieces: [],
      settled: [],
      played: [],
      answerEnded: false,
      recentlySpoken: [],
      problem: null,
      words: { say: input.say },
      pace: null,
      language: input.language ?? 'en',
      pendingAction: null,
      awaitedAction: null,
      announcements: [],
      asks: [],
      announcedAbout: [],
      // The wall clock where no frames' clock is given: a conversation whose voice is never talked over.
      yielding: { now: input.now ?? (() => Date.now()), pace: input.yielding ?? HEARING.yielding },
    };
  },
  // Heard over the voice, whether the turn is the person's is yielding's to decide; it lives as long as the conversation.
  invoke: { id: 'yielding', systemId: 'yielding', src: 'yielding', input: ({ context }) => ({ pace: context.yielding.pace, now: context.yielding.now }) },
  on: {
    'hearing.bargeIn': [
      { guard: 'yields', actions: sendTo('yielding', ({ event }) => ({ type: 'heard' as const, atMs: event.atMs, ...(event.bar === undefined ? {} : { bar: event.bar }) })) },
      { actions: raise({ type: 'user.interrupted' }) },
    ],
    'recogniser.words': [
      { guard: 'voiceSounding', actions: sendTo('yielding', ({ context, event }) => ({ type: 'words' as const, words: event.words, spoken: remembered(context), language: context.language, sounding: true })) },
      { actions: sendTo('yielding', ({ context, event }) => ({ type: 'words' as const, words: event.words, spoken: remembered(context), language: context.language, sounding: false })) },
    ],
    'yielding.ducked': { actions: [{ type: 'duckVoice', params: true }, assign({ heardOver: true })] },
    'yielding.took': { actions: 'takeTurn' },
    'yielding.carriedOn': { actions: [{ type: 'duckVoice', params: false }, 'listenAgain'] },
    'yielding.released': { actions: [{ type: 'duckVoice', params: false }, 'passWords'] },
    'yielding.passed': { actions: 'passWords' },
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
      actions: assign(({ context, event }) => ({ typing: typingFor(event.error), problem: recogniserProblem(event.error, context.words.say) })),
    },
    'talk.release': { actions: assign({ talkHeld: false }) },
    'settings.changed': { actions: 'applySettings' },
    'voice.paced': { actions: 'takePace' },
    'offer.kept': { actions: 'keepOffer' },
    'offer.taken': { actions: 'markTaken' },
  },
  states: {
    /**
     * `listening` → `answering.thinking` → `answering.speaking` → `listening`. The turn returns when
     * the answer has ended AND every piece handed to the speaker has played out — a reply plays on
     * after its text is complete; for the on-device voice, the pieces after the opening are cut as
     * it is ready for them (src/core/speaking/pieceHandover.ts). Barge-in leaves `answering` from
     * either sub-state, which stops the invoked `streamAnswer` (aborting the request).
     * An answer that asks the person to confirm a verb (`answer.confirm`) returns the turn to
     * `confirming` instead: the next thing the person says (or presses) is heard as a yes, a no or
     * something else (`yesNo.ts`); a yes or a no is sent by `settleAction` and the server's sentence
     * is said in `announcing`; something else refuses the action and is taken as a new question.
     * Nothing but the person's own yes approves: not a barge-in, not waiting (`confirmPatience`).
     * `announcing` also says what the bot brings up by itself (`bot.announces`), only once the turn
     * is the person's and they are quiet; until then it waits in the context.
     */
    turn: {
      initial: 'listening',
      on: {
        'bot.announces': { actions: 'queueAnnouncement' },
        'bot.asks': { actions: 'queueAsk' },
        'bot.withdraws': { actions: 'withdrawAnnouncement' },
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
              // "Hold on" as a whole turn is not a question: nothing is said, and what comes next is the turn.
              { guard: 'asksToWait', actions: 'waitForMore' },
              { target: 'answering', actions: 'ask' },
            ],
            'talk.press': { actions: assign({ talkHeld: ({ context }) => context.pushToTalk }) },
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
                // An offer is read again as the list it was written as: the model sees what it offered.
                ...context.lines.map((l): ChatMessage => ({ role: l.role, content: l.offer === undefined ? l.text : writtenWithChoices(l.text, l.offer) })),
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
            'answer.confirm': { guard: 'current', actions: 'takePending' },
            ...hearingAudio,
            // Talking over the question approves nothing: the action waits for the person's answer.
            'user.interrupted': [
              { guard: 'pending', target: 'confirming', actions: 'bargeIn' },
              { target: 'listening', actions: 'bargeIn' },
            ],
            'talk.press': [
              { guard: and(['pushToTalk', 'pending']), target: 'confirming', actions: ['bargeIn', 'pressTalk'] },
              { guard: 'pushToTalk', target: 'listening', actions: ['bargeIn', 'pressTalk'] },
            ],
            'user.said': [
              { guard: 'blank' },
              { guard: 'selfEcho' },
              // Said over the question (or before it) while the action waits: it is the answer to it.
              { guard: and(['pending', 'saidYes']), target: 'confirming.settling', actions: ['bargeIn', 'ask', 'approve'] },
              { guard: and(['pending', 'saidNo']), target: 'confirming.settling', actions: ['bargeIn', 'ask', 'refuse'] },
              { guard: 'pending', target: 'answering', reenter: true, actions: ['bargeIn', 'refuseQuietly', 'ask'] },
              { guard: 'asksToWait', target: 'listening', actions: ['bargeIn', 'waitForMore'] },
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
                'audio.started': firstSound,
              },
              after: {
                answerPatience: { guard: 'nothingYet', actions: 'giveUpWaiting' },
              },
            },
            speaking: { exit: 'releaseYielding' },
          },
        },
        confirming: {
          initial: 'asking',
          on: {
            'user.interim': { actions: assign({ liveLine: ({ event }) => event.text }) },
            'talk.press': { actions: assign({ talkHeld: ({ context }) => context.pushToTalk }) },
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
    /**
     * The recogniser, derived rather than commanded. It is on exactly when the person can be heard —
     * microphone in use, the talk control down in push to talk, and no assistant audio audible
     * (half-duplex: the browser recogniser opens its own capture that echo cancellation does not
     * touch, so it would transcribe the assistant).
     */
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

type ConversationMachine = typeof conversationMachine;
export type ConversationActor = ActorRefFrom<ConversationMachine>;
export type ConversationSnapshot = SnapshotFrom<ConversationMachine>;
