/**
 * The executor's typed failures. Each carries a code a program can branch on and a sentence a person
 * can hear as it is; neither ever quotes an argument, a result or what a handler threw. A code's own
 * sentence is a word (`## verbs` of `words/<lang>.md`): on the error it is the server's (what a model
 * reads), and `heardSentence` says it again in the person's language.
 */
import type { VerbErrorCode } from '../../common/acting/protocol';
import { BASE_LANGUAGE, shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { WordKey, Words } from '../words/words';

export type { VerbErrorCode } from '../../common/acting/protocol';

export class VerbError extends Error {
  override readonly name = 'VerbError';
  /** A sentence a person can hear; `message` is the same sentence. */
  readonly sentence: string;
  /** Whether `sentence` is the code's own word rather than one the thrower wrote (in the person's language already). */
  readonly saysCode: boolean;
  constructor(
    readonly code: VerbErrorCode,
    sentence?: string,
    options?: ErrorOptions,
  ) {
    const said = sentence ?? sentenceOf(code);
    super(said, options);
    this.sentence = said;
    this.saysCode = sentence === undefined;
  }
}

/**
 * Thrown by a handler when its input passed the schema but cannot be done as asked ("a reminder
 * needs a time or a delay"): the call ends `invalid_input` with this sentence, which is spoken, so it
 * must say what to change, in the person's language, and quote nothing the person said.
 */
export class VerbInputError extends Error {
  override readonly name = 'VerbInputError';
}

/** The word for `code`: `verbs.timed-out` for `timed_out`. */
function wordOf(code: VerbErrorCode): WordKey {
  return `verbs.${code.replaceAll('_', '-')}` as WordKey;
}

/** `code`'s own sentence in `words` (default: the server's, English). */
export function sentenceOf(code: VerbErrorCode, words: Words = shippedWords().wordsIn(BASE_LANGUAGE)): string {
  return say(words, wordOf(code));
}

/** What a person hears of `error`, in `words`: its code's sentence in their language, or the one its thrower wrote. */
export function heardSentence(error: Pick<VerbError, 'code' | 'sentence' | 'saysCode'>, words: Words): string {
  return error.saysCode ? sentenceOf(error.code, words) : error.sentence;
}
