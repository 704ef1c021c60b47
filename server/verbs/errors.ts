/**
 * The executor's typed failures. Each carries a code a program can branch on and a sentence a person
 * can hear as it is ("That took too long, so I stopped waiting for it."); neither ever quotes an
 * argument, a result or what a handler threw.
 */
import type { VerbErrorCode } from '../../core/acting/protocol';

export type { VerbErrorCode } from '../../core/acting/protocol';

const SENTENCES: Readonly<Record<VerbErrorCode, string>> = {
  invalid_input: 'That request was not quite right, so nothing was done.',
  timed_out: 'That took too long, so I stopped waiting for it.',
  cancelled: 'That was cancelled before it finished.',
  execution_failed: 'Something went wrong doing that, so it was not done.',
  output_too_large: 'That answer was too large to pass on.',
  not_in_scope: 'That is not something I can do in this conversation.',
  confirmation_required: 'That needs your yes first.',
  unknown_verb: 'I do not know how to do that.',
  key_reused: 'That idempotency key was already used for a different request; use a new key for a new request.',
  rate_limited: 'Too many requests at once; wait a moment and try again.',
  server_busy: 'Too much is running at once; try again in a moment.',
  overloaded: 'I am still finishing things that took too long, so I cannot start that now; try again in a minute.',
  outcome_unknown: "I can't tell whether that went through.",
};

export class VerbError extends Error {
  override readonly name = 'VerbError';
  /** A sentence a person can hear; `message` is the same sentence. */
  readonly sentence: string;
  constructor(
    readonly code: VerbErrorCode,
    sentence: string = SENTENCES[code],
    options?: ErrorOptions,
  ) {
    super(sentence, options);
    this.sentence = sentence;
  }
}

/**
 * Thrown by a handler when its input passed the schema but cannot be done as asked ("a reminder
 * needs a time or a delay"): the call ends `invalid_input` with this sentence, which is spoken, so it
 * must say what to change and quote nothing the person said.
 */
export class VerbInputError extends Error {
  override readonly name = 'VerbInputError';
}

export function sentenceOf(code: VerbErrorCode): string {
  return SENTENCES[code];
}
