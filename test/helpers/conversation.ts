/**
 * A scenario builder for the conversation machine, in the manner of pipecat-client-web's:
 * `conversation().user('…').bot('…').interruptAfter('…')`. Every step runs at once against a real
 * actor driven by a simulated clock, with fakes for every named effect; the builder keeps what
 * the machine asked of them so a test can assert it.
 */
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import type { Actor } from 'xstate';
import { conversationMachine } from '../../src/core/conversation/conversationMachine';
import type { AnswerRequest, SettleRequest } from '../../src/core/conversation/machineSetup';
import type { SpeakRequest } from '../../src/core/speaking/pieceHandover';
import type { ActionSettled, PendingActionEvent } from '../../common/acting/protocol';
import type { ConversationEvent, Line } from '../../common/conversation/events';
import type { ConversationInput } from '../../src/core/conversation/context';
import { englishSay } from './pageWords';

/** One named effect the machine ran, in order. */
export type Effect =
  | { type: 'startRecogniser' }
  | { type: 'stopRecogniser' }
  | { type: 'stopAudio' }
  | { type: 'speak'; params: SpeakRequest }
  | { type: 'cancelUtterance'; params: { utteranceId: number } }
  | { type: 'saveLine'; params: Line }
  | { type: 'duckVoice'; params: boolean }
  | { type: 'listenAgain' };

/** One request the fake answer stream received, and whether the machine aborted it. */
export interface AnswerStream {
  request: AnswerRequest;
  aborted: boolean;
}

/** One answer the machine sent for a pending action, and whether it let the sender go. */
export interface Settlement {
  request: SettleRequest;
  stopped: boolean;
}

export interface ScenarioOptions extends Partial<ConversationInput> {
  /** Override the named delays, in milliseconds. */
  delays?: { answerPatience?: number; confirmPatience?: number };
}

/** The pending action the scenarios ask about, unless a test names another. */
export const CLEAR_LIST: PendingActionEvent = {
  id: 'act-1',
  verb: 'lists.clear',
  question: 'Clear your shopping list? Say yes or no.',
  expiresAtMs: 60_000,
};

export class Scenario {
  readonly clock = new SimulatedClock();
  readonly effects: Effect[] = [];
  readonly streams: AnswerStream[] = [];
  readonly settlements: Settlement[] = [];
  readonly actor: Actor<typeof conversationMachine>;
  /** How many things the person has said: each is given the turn id `turn-<n>`, as the page gives a fresh one. */
  private said = 0;

  constructor(options: ScenarioOptions = {}) {
    const { delays, ...input } = options;
    const effects = this.effects;
    const streams = this.streams;
    const settlements = this.settlements;
    const machine = conversationMachine.provide({
      actions: {
        startRecogniser: () => {
          this.recogniserOn = true;
          effects.push({ type: 'startRecogniser' });
        },
        stopRecogniser: () => {
          this.recogniserOn = false;
          effects.push({ type: 'stopRecogniser' });
        },
        stopAudio: () => effects.push({ type: 'stopAudio' }),
        speak: (_, params) => effects.push({ type: 'speak', params }),
        cancelUtterance: (_, params) => effects.push({ type: 'cancelUtterance', params }),
        saveLine: (_, params) => effects.push({ type: 'saveLine', params }),
        duckVoice: (_, params) => effects.push({ type: 'duckVoice', params }),
        listenAgain: () => effects.push({ type: 'listenAgain' }),
      },
      actors: {
        streamAnswer: fromCallback<ConversationEvent, AnswerRequest>(({ input: request }) => {
          const stream: AnswerStream = { request, aborted: false };
          streams.push(stream);
          return () => {
            stream.aborted = true;
          };
        }),
        settleAction: fromCallback<ConversationEvent, SettleRequest>(({ input: request }) => {
          const settlement: Settlement = { request, stopped: false };
          settlements.push(settlement);
          return () => {
            settlement.stopped = true;
          };
        }),
      },
      delays: {
        answerPatience: delays?.answerPatience ?? 30_000,
        ...(delays?.confirmPatience === undefined ? {} : { confirmPatience: delays.confirmPatience }),
      },
    });
    this.actor = createActor(machine, {
      clock: this.clock,
      input: { recogniser: true, say: englishSay, now: () => this.clock.now(), ...input },
    });
    this.actor.start();
  }

  get snapshot() {
    return this.actor.getSnapshot();
  }

  get context() {
    return this.snapshot.context;
  }

  /** `listening`, `thinking`, `speaking`, `greeting`, `announcing`, `confirming` or `settling`. */
  get turn(): 'listening' | 'thinking' | 'speaking' | 'greeting' | 'announcing' | 'confirming' | 'settling' {
    const s = this.snapshot;
    if (s.matches({ turn: 'listening' })) return 'listening';
    if (s.matches({ turn: 'greeting' })) return 'greeting';
    if (s.matches({ turn: 'announcing' })) return 'announcing';
    if (s.matches({ turn: { confirming: 'asking' } })) return 'confirming';
    if (s.matches({ turn: { confirming: 'settling' } })) return 'settling';
    return s.matches({ turn: { answering: 'speaking' } }) ? 'speaking' : 'thinking';
  }

  /** The bot greets, as a new conversation opens. */
  greets(text: string): this {
    return this.send({ type: 'bot.greets', text });
  }

  /** Whether the recogniser is running, as the machine's start and stop effects left it. */
  recogniserOn = false;

  /** The speak requests made so far, oldest first. */
  get spoken(): SpeakRequest[] {
    return this.effects.flatMap((e) => (e.type === 'speak' ? [e.params] : []));
  }

  /** The answer stream of the current utterance. */
  get stream(): AnswerStream {
    const stream = this.streams.at(-1);
    if (!stream) throw new Error('no answer has been asked for yet');
    return stream;
  }

  get utteranceId(): number {
    return this.context.utteranceId;
  }

  /** Forget the effects so far, to assert only what the next steps cause. */
  clearEffects(): this {
    this.effects.length = 0;
    return this;
  }

  count(type: Effect['type']): number {
    return this.effects.filter((e) => e.type === type).length;
  }

  send(event: ConversationEvent): this {
    this.actor.send(event);
    return this;
  }

  /** The recogniser's interim words. */
  hears(text: string): this {
    return this.send({ type: 'user.interim', text });
  }

  /** A final transcript: interim words first, as a recogniser delivers them. */
  user(text: string): this {
    if (text.trim() !== '') this.hears(text.split(' ').slice(0, 2).join(' '));
    return this.send({ type: 'user.said', text, via: 'voice', turnId: this.nextTurnId() });
  }

  types(text: string): this {
    return this.send({ type: 'user.said', text, via: 'keyboard', turnId: this.nextTurnId() });
  }

  private nextTurnId(): string {
    this.said += 1;
    return `turn-${String(this.said)}`;
  }

  /** Answer text arriving for the current utterance, in the given deltas. */
  deltas(...deltas: string[]): this {
    for (const text of deltas) this.send({ type: 'answer.delta', utteranceId: this.utteranceId, text });
    return this;
  }

  /** The whole answer streamed word by word and ended; no audio has played yet. */
  bot(text: string): this {
    this.streamWords(text);
    return this.send({ type: 'answer.done', utteranceId: this.utteranceId });
  }

  /** Answer text streamed word by word without ending. */
  streamWords(text: string): this {
    return this.deltas(...text.split(/(?<= )/));
  }

  /**
   * The door asks the person to confirm `action`, received now on the scenario's clock; the question
   * streams as the answer's text and the answer ends. No audio has played yet.
   */
  asks(action: PendingActionEvent = CLEAR_LIST): this {
    this.send({ type: 'answer.confirm', utteranceId: this.utteranceId, action, atMs: this.clock.now() });
    return this.bot(action.question);
  }

  /** The person presses Yes or No. */
  presses(answer: 'yes' | 'no'): this {
    return this.send({ type: answer === 'yes' ? 'action.yes' : 'action.no' });
  }

  /** The server's answer to the latest settlement arrives. */
  settles(outcome: ActionSettled['outcome'], sentence: string): this {
    const settlement = this.settlements.at(-1);
    if (!settlement) throw new Error('no action has been settled yet');
    return this.send({ type: 'action.settled', actionId: settlement.request.actionId, outcome, sentence });
  }

  /** The bot says something of its own accord. */
  announces(text: string): this {
    return this.send({ type: 'bot.announces', text });
  }

  answerDone(): this {
    return this.send({ type: 'answer.done', utteranceId: this.utteranceId });
  }

  answerFails(reason: string): this {
    return this.send({ type: 'answer.failed', utteranceId: this.utteranceId, reason });
  }

  /** The player starts piece `piece` of the current utterance. */
  starts(piece: number, utteranceId = this.utteranceId): this {
    return this.send({ type: 'audio.started', utteranceId, piece });
  }

  /** The player finishes piece `piece` of the current utterance. */
  ends(piece: number, utteranceId = this.utteranceId): this {
    return this.send({ type: 'audio.ended', utteranceId, piece });
  }

  /** Every piece handed to the speaker for the current utterance plays out, in order. */
  plays(): this {
    const id = this.utteranceId;
    for (const { piece } of this.spoken.filter((r) => r.utteranceId === id)) {
      this.starts(piece, id).ends(piece, id);
    }
    return this;
  }

  /** The echo gate hears the person over the assistant. */
  interrupt(): this {
    return this.send({ type: 'user.interrupted' });
  }

  /**
   * The answer streams up to and including `text`, its opening piece becomes audible, and the
   * person talks over it.
   */
  interruptAfter(text: string): this {
    this.streamWords(text);
    const first = this.spoken.find((r) => r.utteranceId === this.utteranceId);
    if (first) this.starts(first.piece);
    return this.interrupt();
  }

  press(): this {
    return this.send({ type: 'talk.press' });
  }

  release(): this {
    return this.send({ type: 'talk.release' });
  }

  wait(ms: number): this {
    this.clock.increment(ms);
    return this;
  }
}

export function conversation(options: ScenarioOptions = {}): Scenario {
  return new Scenario(options);
}
