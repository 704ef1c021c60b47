/**
 * A scenario builder for the conversation machine, in the manner of pipecat-client-web's:
 * `conversation().user('…').bot('…').interruptAfter('…')`. Every step runs at once against a real
 * actor driven by a simulated clock, with fakes for every named effect; the builder keeps what
 * the machine asked of them so a test can assert it.
 */
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import type { Actor } from 'xstate';
import {
  conversationMachine,
  type AnswerRequest,
  type SpeakRequest,
} from '../../src/core/conversation/conversationMachine';
import type { ConversationEvent, ConversationInput, Line } from '../../src/core/conversation/events';

/** One named effect the machine ran, in order. */
export type Effect =
  | { type: 'startRecogniser' }
  | { type: 'stopRecogniser' }
  | { type: 'stopAudio' }
  | { type: 'speak'; params: SpeakRequest }
  | { type: 'cancelUtterance'; params: { utteranceId: number } }
  | { type: 'saveLine'; params: Line };

/** One request the fake answer stream received, and whether the machine aborted it. */
export interface AnswerStream {
  request: AnswerRequest;
  aborted: boolean;
}

export interface ScenarioOptions extends Partial<ConversationInput> {
  /** Override the named delays, in milliseconds. */
  delays?: { answerPatience?: number };
}

export class Scenario {
  readonly clock = new SimulatedClock();
  readonly effects: Effect[] = [];
  readonly streams: AnswerStream[] = [];
  readonly actor: Actor<typeof conversationMachine>;

  constructor(options: ScenarioOptions = {}) {
    const { delays, ...input } = options;
    const effects = this.effects;
    const streams = this.streams;
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
      },
      actors: {
        streamAnswer: fromCallback<ConversationEvent, AnswerRequest>(({ input: request }) => {
          const stream: AnswerStream = { request, aborted: false };
          streams.push(stream);
          return () => {
            stream.aborted = true;
          };
        }),
      },
      delays: { answerPatience: delays?.answerPatience ?? 30_000 },
    });
    this.actor = createActor(machine, {
      clock: this.clock,
      input: { recogniser: true, ...input },
    });
    this.actor.start();
  }

  get snapshot() {
    return this.actor.getSnapshot();
  }

  get context() {
    return this.snapshot.context;
  }

  /** `listening`, `thinking` or `speaking`. */
  get turn(): 'listening' | 'thinking' | 'speaking' | 'greeting' {
    const s = this.snapshot;
    if (s.matches({ turn: 'listening' })) return 'listening';
    if (s.matches({ turn: 'greeting' })) return 'greeting';
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
    return this.send({ type: 'user.said', text, via: 'voice' });
  }

  types(text: string): this {
    return this.send({ type: 'user.said', text, via: 'keyboard' });
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
