/**
 * The one place that plugs real adapters into the conversation machine. The machine decides
 * everything (src/core/conversation); this file only turns its named effects into calls on the
 * ports — recogniser, speaker, player, hearing, the door, the line keeper — and the ports' reports
 * into its events. The ports are interfaces, so the whole junction runs in Node tests with fakes;
 * the page builds the real ones (src/app/page/pageConversation.ts).
 */
import type { PendingActionEvent } from '../../common/acting/protocol';
import { createActor, fromCallback } from 'xstate';
import { conversationMachine } from '../core/conversation/conversationMachine';
import type { ConversationActor, ConversationSnapshot } from '../core/conversation/conversationMachine';
import type { AnswerRequest, SettleRequest } from '../core/conversation/machineSetup';
import type { SpeakRequest } from '../core/speaking/pieceHandover';
import type { ActionSettled } from '../../common/acting/protocol';
import type { Pace } from '../../common/speaking/pace';
import type { ChatMessage, ConversationEvent, Line, Problem, RecogniserError, TypingReason, Voice } from '../../common/conversation/events';
import type { Clock } from '../core/clock';
import type { Offer } from '../../common/conversation/choices';
import type { YieldingEvent } from '../core/hearing/yieldingMachine';
import type { ConversationInput } from '../core/conversation/context';
import type { AnswerItem } from '../platform/doorClient';
import { newId } from '../platform/newId';
import { sayWord } from '../platform/words';

/** The recogniser as the conversation uses it (src/platform/recogniser.ts). */
interface RecogniserPort {
  start(language: string): void;
  stop(): void;
  on(event: 'interim' | 'final', listener: (text: string) => void): () => void;
  on(event: 'ended', listener: () => void): () => void;
  on(event: 'failed', listener: (error: RecogniserError) => void): () => void;
}

/** A piece that could not be voiced. */
export interface SpeakerFailure {
  utteranceId: number;
  piece: number;
  voice: Voice;
  reason: string;
}

/** The voices: each piece is synthesised or fetched and handed to the player in order. */
export interface SpeakerPort {
  speak(request: SpeakRequest): void;
  /** Nothing more of this utterance may reach the player. */
  cancel(utteranceId: number): void;
  onFailed(listener: (failure: SpeakerFailure) => void): () => void;
  /** Hears the on-device voice's pace each time it changes; absent where there is no such voice. */
  onPaced?(listener: (pace: Pace) => void): () => void;
}

/** The player as the conversation uses it (src/platform/audio/player.ts). */
export interface PlayerPort {
  stop(): void;
  /** Ducks the voice under the person while it is decided whose turn it is, or brings it back. */
  duck(ducked: boolean): void;
  on(event: 'started' | 'ended', listener: (key: { utteranceId: number; piece: number }) => void): () => void;
}

/** The microphone level and echo gate: says when the person talks over the assistant. Its frames are timed on the conversation's clock. */
export interface HearingPort {
  /** The gate heard the person over the voice, in the frame that ended at `atMs`, clearing `bar`. */
  onBargeIn(listener: (heard: { atMs: number; bar: number }) => void): () => void;
  /** The voice activity model's frames on the microphone, where it runs. */
  onVoice?(listener: (frame: { atMs: number; speech: boolean }) => void): () => void;
  /** The microphone's level frames, as the gate heard them. */
  onLevel?(listener: (frame: { atMs: number; level: number }) => void): () => void;
  /** The voice carried on past what was heard: the gate hears the next sound over it afresh. */
  listenAgain?(): void;
}

export interface ConversationPorts {
  /** Undefined where the browser has no recogniser: the conversation is typed. */
  recogniser: RecogniserPort | undefined;
  speaker: SpeakerPort;
  player: PlayerPort;
  /** Undefined until (or unless) the microphone's level can be read. */
  hearing?: HearingPort;
  /** The clock the hearing's frames carry, which the machine's timers and yielding read: default the wall clock. */
  clock?: Clock;
  /**
   * The answer as it streams (its text, and the door's events); must stop (and cancel the request)
   * when `signal` aborts. `turnId` is the question's turn id: every try of this answer sends it.
   */
  answer: (messages: readonly ChatMessage[], signal: AbortSignal, turnId: string) => AsyncIterable<AnswerItem>;
  /** A fresh id for each thing the person says (finishes speaking, or presses Send); default `newId`. */
  newTurnId?: () => string;
  /** Keeps one line as it is said. */
  keep: (line: Line) => void;
  /**
   * Approves (`approve`) or refuses a pending action under the person's session; rejects when the
   * server could not be asked.
   */
  settle: (actionId: string, approve: boolean) => Promise<ActionSettled>;
  /** The recogniser's language now (the reader's setting). */
  language: () => string;
}

/** What the page shows, read from the machine. */
export interface ConversationView {
  /**
   * What the turn is doing: whose it is, whether the assistant is thinking, greeting, saying
   * something of its own accord (`announcing`) or answering audibly, or waiting for the person's
   * yes or no (`confirming`).
   */
  phase: 'listening' | 'thinking' | 'speaking' | 'greeting' | 'announcing' | 'confirming';
  /** The one big line: interim words, then the question while it is thought about. */
  liveLine: string;
  /** The written conversation, settled lines only. */
  lines: readonly Line[];
  /** Why only typing works, or null while the microphone is the way in. */
  typing: TypingReason | null;
  /** Push to talk instead of an open microphone. */
  pushToTalk: boolean;
  /** Push to talk: the talk control is down. */
  talkHeld: boolean;
  /** The person asked the bot to wait ("hold on"): it keeps listening, says nothing, and the live line says it is waiting. */
  waiting: boolean;
  speech: boolean;
  /** Whether the recogniser is listening now. */
  listening: boolean;
  problem: Problem | null;
  /** What the person is asked to confirm while `phase` is `confirming`; null otherwise. */
  pendingAction: { question: string; expiresAtMs: number } | null;
}

export interface Conversation {
  view(): ConversationView;
  /** Calls `listener` with each new view; returns the unsubscribe. */
  subscribe(listener: (view: ConversationView) => void): () => void;
  /** Typed text: goes exactly where a spoken sentence goes. */
  type(text: string): void;
  /** The talk control (push to talk) went down / came up. */
  press(): void;
  release(): void;
  mute(): void;
  unmute(): void;
  /**
   * The person has gone (the page is closing or reloading): an answer or greeting under way is cut
   * as a barge-in cuts it, so what was said of it is kept, marked interrupted. Nothing otherwise.
   */
  interrupt(): void;
  /** The page's own microphone could not be opened. */
  microphoneRefused(missing: boolean, reason: string): void;
  /** Speaks the bot's greeting, for a conversation with nothing in it yet. */
  greet(text: string): void;
  /** Says `text` of the bot's own accord, as soon as the turn is the person's and they are quiet. */
  announce(text: string, about?: string): void;
  /** Drops what waits to be announced about `about`, unsaid. */
  withdraw(about: string): void;
  /** Asks a run's question as an announcement, then hears the person's yes or no to it. */
  ask(action: PendingActionEvent): void;
  /** What was to be announced and has not yet been said (for a conversation that replaces this one). */
  unsaid(): readonly string[];
  /** The person pressed Yes (`true`) or No for the action they are asked to confirm. */
  confirm(yes: boolean): void;
  /** The server kept the answer of `utteranceId` as `text` ending in `offer`'s choices. */
  offer(utteranceId: number, text: string, offer: Offer): void;
  /** Choice `taken` of the offer `offerId` was taken, here or on another page. */
  taken(offerId: string, taken: number): void;
  settings(change: { speech?: boolean; pushToTalk?: boolean; language?: string }): void;
  /** Stops everything: the recogniser, the answer, the audio, the listeners. */
  stop(): void;
  /** The machine itself, for tests and tools. */
  readonly actor: ConversationActor;
}

function phaseOf(snapshot: ConversationSnapshot): ConversationView['phase'] {
  if (snapshot.matches({ turn: 'listening' })) return 'listening';
  if (snapshot.matches({ turn: 'greeting' })) return 'greeting';
  if (snapshot.matches({ turn: 'announcing' })) return 'announcing';
  if (snapshot.matches({ turn: { confirming: 'asking' } })) return 'confirming';
  if (snapshot.matches({ turn: { answering: 'speaking' } })) return 'speaking';
  // Thinking about the question, or waiting for the server's word on the person's yes or no.
  return 'thinking';
}

function viewOf(snapshot: ConversationSnapshot): ConversationView {
  const { context } = snapshot;
  const phase = phaseOf(snapshot);
  const pending = context.pendingAction;
  return {
    phase,
    liveLine: context.liveLine,
    lines: context.lines,
    typing: context.typing,
    pushToTalk: context.pushToTalk,
    talkHeld: context.talkHeld,
    waiting: context.waiting,
    speech: context.speech,
    listening: snapshot.matches({ ear: 'on' }),
    problem: context.problem,
    pendingAction: phase === 'confirming' && pending !== null ? { question: pending.question, expiresAtMs: pending.expiresAtMs } : null,
  };
}

/** `input.say` defaults to the page's words in the person's language. */
export function createConversation(ports: ConversationPorts, input: Omit<ConversationInput, 'say'> & Partial<Pick<ConversationInput, 'say'>>): Conversation {
  const subscriptions: (() => void)[] = [];
  const send = (event: ConversationEvent) => {
    actor.send(event);
  };

  const machine = conversationMachine.provide({
    actions: {
      startRecogniser: () => ports.recogniser?.start(ports.language()),
      stopRecogniser: () => ports.recogniser?.stop(),
      speak: (_, request) => {
        ports.speaker.speak(request);
      },
      stopAudio: () => {
        ports.player.stop();
      },
      cancelUtterance: (_, { utteranceId }) => {
        ports.speaker.cancel(utteranceId);
      },
      saveLine: (_, line) => {
        ports.keep(line);
      },
      duckVoice: (_, ducked) => {
        ports.player.duck(ducked);
      },
      listenAgain: () => ports.hearing?.listenAgain?.(),
    },
    actors: {
      streamAnswer: fromCallback<ConversationEvent, AnswerRequest>(({ input: request, sendBack }) => {
        const controller = new AbortController();
        void (async () => {
          try {
            for await (const item of ports.answer(request.messages, controller.signal, request.turnId)) {
              if (controller.signal.aborted) return;
              if (item.type === 'text') sendBack({ type: 'answer.delta', utteranceId: request.utteranceId, text: item.text, atMs: Date.now() });
              else if (item.type === 'confirm') sendBack({ type: 'answer.confirm', utteranceId: request.utteranceId, action: item.action, atMs: Date.now() });
            }
            if (!controller.signal.aborted) sendBack({ type: 'answer.done', utteranceId: request.utteranceId, atMs: Date.now() });
          } catch (error) {
            if (controller.signal.aborted) return;
            sendBack({ type: 'answer.failed', utteranceId: request.utteranceId, reason: error instanceof Error ? error.message : sayWord('page-answers.stopped') });
          }
        })();
        // Leaving the answer (barge-in, a new question) aborts the request, and the door its upstream.
        return () => {
          controller.abort(new DOMException(sayWord('page-answers.stopped'), 'AbortError'));
        };
      }),
      // Not aborted when the machine lets it go: an answer the person gave is delivered whatever follows.
      settleAction: fromCallback<ConversationEvent, SettleRequest>(({ input: { actionId, approve }, sendBack }) => {
        let gone = false;
        ports.settle(actionId, approve).then(
          (settled) => {
            if (!gone) sendBack({ type: 'action.settled', actionId, outcome: settled.outcome, sentence: settled.sentence });
          },
          () => {
            if (!gone) sendBack({ type: 'action.failed', actionId, sentence: unsettled(approve) });
          },
        );
        return () => {
          gone = true;
        };
      }),
    },
  });

  const clock = ports.clock ?? wallClock;
  const actor = createActor(machine, { clock, input: { say: sayWord, now: () => clock.now(), ...input } });

  const { recogniser, hearing } = ports;
  // The turn's id is made the moment the person finishes (or presses Send), before anything is asked.
  const newTurnId = ports.newTurnId ?? newId;
  if (recogniser !== undefined) {
    subscriptions.push(
      recogniser.on('interim', (text) => {
        send({ type: 'recogniser.words', words: { final: false, text } });
      }),
      recogniser.on('final', (text) => {
        send({ type: 'recogniser.words', words: { final: true, text, turnId: newTurnId() } });
      }),
      recogniser.on('ended', () => {
        send({ type: 'recogniser.ended' });
      }),
      recogniser.on('failed', (error) => {
        send({ type: 'recogniser.failed', error });
      }),
    );
  }
  subscriptions.push(
    ports.player.on('started', ({ utteranceId, piece }) => {
      send({ type: 'audio.started', utteranceId, piece });
    }),
    ports.player.on('ended', ({ utteranceId, piece }) => {
      send({ type: 'audio.ended', utteranceId, piece });
    }),
    ports.speaker.onFailed((failure) => {
      send({ type: 'speaker.failed', ...failure });
    }),
  );
  const paced = ports.speaker.onPaced?.((pace) => {
    send({ type: 'voice.paced', pace });
  });
  if (paced !== undefined) subscriptions.push(paced);
  if (hearing !== undefined) {
    // The frames go straight to yielding, which alone reads them: the conversation hears only its rulings.
    const yielding = (event: YieldingEvent) => {
      actor.getSnapshot().children.yielding?.send(event);
    };
    subscriptions.push(
      hearing.onBargeIn(({ atMs, bar }) => {
        send({ type: 'hearing.bargeIn', atMs, bar });
      }),
    );
    const voice = hearing.onVoice?.(({ atMs, speech }) => {
      yielding({ type: 'voice', atMs, speech });
    });
    const level = hearing.onLevel?.(({ atMs, level }) => {
      yielding({ type: 'sound', atMs, level });
    });
    for (const stop of [voice, level]) if (stop !== undefined) subscriptions.push(stop);
  }

  actor.start();

  return {
    view: () => viewOf(actor.getSnapshot()),
    subscribe(listener) {
      // An event that changed nothing leaves the snapshot as it was: the view has nothing new to show.
      let shown: ConversationSnapshot | null = null;
      const subscription = actor.subscribe((snapshot) => {
        if (snapshot === shown) return;
        shown = snapshot;
        listener(viewOf(snapshot));
      });
      return () => {
        subscription.unsubscribe();
      };
    },
    type(text) {
      send({ type: 'user.said', text, via: 'keyboard', turnId: newTurnId() });
    },
    press: () => {
      send({ type: 'talk.press' });
    },
    release: () => {
      send({ type: 'talk.release' });
    },
    mute: () => {
      send({ type: 'mic.mute' });
    },
    unmute: () => {
      send({ type: 'mic.unmute' });
    },
    interrupt: () => {
      send({ type: 'user.interrupted' });
    },
    microphoneRefused(missing, reason) {
      send({ type: 'mic.refused', missing, reason });
    },
    greet(text) {
      send({ type: 'bot.greets', text });
    },
    announce(text, about) {
      send({ type: 'bot.announces', text, ...(about === undefined ? {} : { about }) });
    },
    withdraw(about) {
      send({ type: 'bot.withdraws', about });
    },
    ask(action) {
      send({ type: 'bot.asks', action, atMs: Date.now() });
    },
    unsaid: () => actor.getSnapshot().context.announcements,
    confirm(yes) {
      send({ type: yes ? 'action.yes' : 'action.no' });
    },
    offer(utteranceId, text, offer) {
      send({ type: 'offer.kept', utteranceId, text, offer });
    },
    taken(offerId, taken) {
      send({ type: 'offer.taken', offer: offerId, taken });
    },
    settings(change) {
      send({ type: 'settings.changed', ...change });
    },
    stop() {
      for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
      actor.stop();
      recogniser?.stop();
      ports.player.stop();
    },
    actor,
  };
}

/**
 * What is said when the person's answer could not reach the server. A refusal that did not arrive
 * still holds (an action nobody approves expires unrun); an approval may or may not have arrived.
 */
function unsettled(approve: boolean): string {
  return sayWord(approve ? 'page-talk.unsettled-yes' : 'page-talk.unsettled-no');
}

/** Where no frames' clock is given: the page's monotonic clock and its timers. */
const wallClock: Clock = {
  now: () => performance.now(),
  setTimeout: (run, delayMs) => setTimeout(run, delayMs),
  clearTimeout: (id) => {
    clearTimeout(id as ReturnType<typeof setTimeout>);
  },
};
