/**
 * One answer as the door hands it on: text pieces as they come, then how it ended. Per-answer
 * limits live here: `minutes` aborts the answer's signal (the door sets the timer), `spend` is
 * checked after every token against a running estimate. Either ends the answer with a sentence
 * the voice can say, as does a provider that breaks after its first token — the answer is that
 * provider's by then, and switching mid-sentence would start the answer over in another voice.
 */
import { say } from '../words/words';
import type { WordKey, Words } from '../words/words';
import type { ModelPrice, TokenUsage } from './prices';
import { costUsd, estimateTokens } from './prices';
import type { ToolCallAccumulator } from './toolCalls';
import type { OpenUpstream } from './upstream';

/** How an answer ended. */
export type AnswerEnded =
  /** The model finished. */
  | 'stop'
  /** The provider stopped at its own token ceiling. */
  | 'length'
  /** The answer's `minutes` ran out. */
  | 'minutes'
  /** The answer's running cost passed its `spend`. */
  | 'spend'
  /** The provider failed after its first token. */
  | 'broke'
  /** The provider sent nothing for its idle limit after its first token: the answer was cut. */
  | 'stalled'
  /** The server is stopping: an answer still running after the grace period is cut. */
  | 'shutdown'
  /** The client went away. */
  | 'aborted'
  /** The ledger refused the turn before anything was asked. */
  | 'refused';

/**
 * Why an answer's signal was aborted; the `reason` the door aborts with. Its message is the reason
 * alone, for a developer: what a person hears of it is `closingSentence`.
 */
export class AnswerStop extends Error {
  override readonly name = 'AnswerStop';
  constructor(readonly why: 'client' | 'minutes' | 'spend' | 'stalled' | 'shutdown') {
    super(why);
  }
}

/** The ways an answer is cut short that the voice says. */
export type Cut = 'minutes' | 'spend' | 'broke' | 'stalled' | 'shutdown';

/** Which of the endings (`words/<lang>.md`, `## endings`) each cut says. */
const CLOSING_WORDS: Readonly<Record<Cut, WordKey>> = {
  minutes: 'endings.out-of-time',
  spend: 'endings.out-of-money',
  broke: 'endings.failed',
  stalled: 'endings.stalled',
  shutdown: 'endings.cancelled',
};

/** What the voice says when an answer is cut short `why`, in the turn's words. */
export function closingSentence(words: Words, why: Cut): string {
  return say(words, CLOSING_WORDS[why]);
}

/** OpenAI's `finish_reason` for an ending: a limit reads as `length`, everything else as `stop`. */
export function finishReason(ended: AnswerEnded): 'stop' | 'length' {
  return ended === 'length' || ended === 'minutes' || ended === 'spend' ? 'length' : 'stop';
}

export interface AnswerResult {
  ended: AnswerEnded;
  /** Characters of answer the model produced (closing sentences not counted). */
  modelChars: number;
  /** Tokens as the provider reported them, when it did. */
  usage?: TokenUsage;
  /**
   * USD of an answer of several model calls, each priced by the model that answered it (a call may
   * have fallen over to another provider mid-turn); set only when every call reported its usage.
   * Unset, the answer is priced whole by its model.
   */
  costUsd?: number;
}

/** One of the door's own SSE events, sent beside the text (see `DOOR_EVENTS`). */
export interface DoorEvent {
  event: string;
  data: unknown;
}

/** The pieces of an answer — text, and the door's own events — and, returned, how it ended. */
export type AnswerPieces = AsyncGenerator<string | DoorEvent, AnswerResult, undefined>;

export interface LimitOptions {
  /** The answer's signal; aborted with an `AnswerStop`. `limitedAnswer` aborts it itself for `spend`. */
  controller: AbortController;
  /** Most USD the answer may cost; unset: not limited. */
  spendUsd?: number;
  /** The answering model's price; without one, `spendUsd` cannot be held. */
  price?: ModelPrice;
  /** Estimated prompt tokens, counted into the running cost. */
  promptTokens: number;
  /** Where the answer's tool-call pieces are gathered; without it they are dropped. */
  toolCalls?: ToolCallAccumulator;
  /** The turn's words, for the sentence that closes a cut answer. */
  words: Words;
  /** Longest wait for the provider's next event, in ms, before the answer is cut as `stalled`; unset: no limit. */
  idleMs?: number;
}

/** `open`'s answer, cut short by the limits in `options` or by the provider breaking. */
export async function* limitedAnswer(open: Pick<OpenUpstream, 'events'>, options: LimitOptions): AsyncGenerator<string, AnswerResult, undefined> {
  const { signal } = options.controller;
  let modelChars = 0;
  let usage: TokenUsage | undefined;
  let length = false;
  let broke = false;
  let said = '';
  let idle: ReturnType<typeof setTimeout> | undefined;
  /** Restarts the wait for the provider's next event. */
  const watch = () => {
    if (options.idleMs === undefined) return;
    clearTimeout(idle);
    idle = setTimeout(() => {
      options.controller.abort(new AnswerStop('stalled'));
    }, options.idleMs);
  };
  watch();
  try {
    for await (const event of open.events) {
      watch();
      if (event.type === 'usage') usage = event.usage;
      else if (event.type === 'finish') length = event.reason === 'length';
      else if (event.type === 'tool-call') options.toolCalls?.push(event.piece);
      else {
        modelChars += event.text.length;
        said = event.text;
        yield event.text;
        const running = costUsd(options.price, { promptTokens: options.promptTokens, completionTokens: estimateTokens(modelChars) });
        if (options.spendUsd !== undefined && options.price !== undefined && running > options.spendUsd) {
          options.controller.abort(new AnswerStop('spend'));
          break;
        }
      }
    }
  } catch (error) {
    if (!signal.aborted) broke = true;
    else if (!(signal.reason instanceof AnswerStop)) throw error;
  } finally {
    clearTimeout(idle);
  }
  const base = { modelChars, ...(usage === undefined ? {} : { usage }) };
  const why = signal.reason instanceof AnswerStop ? signal.reason.why : undefined;
  if (why === 'client') return { ended: 'aborted', ...base };
  const cut = why ?? (broke ? 'broke' : undefined);
  if (cut === undefined) return { ended: length ? 'length' : 'stop', ...base };
  yield closing(said, closingSentence(options.words, cut));
  return { ended: cut, ...base };
}

/** An answer that is one sentence: a refusal, or a limit that ran out before the first token. */
// eslint-disable-next-line @typescript-eslint/require-await -- an answer like any other, though nothing in it waits
export async function* sentenceAnswer(sentence: string, ended: AnswerEnded): AsyncGenerator<string, AnswerResult, undefined> {
  yield sentence;
  return { ended, modelChars: 0 };
}

/** A closing sentence after `last`, the last piece said: a new sentence, or a dash after one cut mid-way. */
function closing(last: string, sentence: string): string {
  if (last === '') return sentence;
  if (/[.!?…]["'”’)\]]?\s*$/.test(last)) return `${/\s$/.test(last) ? '' : ' '}${sentence}`;
  return `${/\s$/.test(last) ? '' : ' '}— ${sentence}`;
}
