/**
 * The chat door's failures, one class per boundary. Each keeps its `cause`; none carries a key,
 * a question or an answer in its message, because messages end up in responses (logs name only the
 * class). A provider's own sentence about a failure the site can fix is kept apart (`sentence`).
 */
import { say } from '../words/words';
import type { Words } from '../words/words';

/** A request the door cannot take: 400 (or 413 for a body past the cap), naming the field. */
export class ChatRequestError extends Error {
  override readonly name = 'ChatRequestError';
  constructor(
    message: string,
    /** The field at fault in OpenAI's `param` form (`messages[2].content`), or null for the whole body. */
    readonly param: string | null,
    readonly status: 400 | 413 = 400,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Why one provider did not answer. */
export type ProviderFailure =
  /** It answered with an HTTP error status (see `status`). */
  | 'status'
  /** It could not be reached: DNS, refused connection, reset before a response. */
  | 'unreachable'
  /** No first token within the door's `firstTokenMs`. */
  | 'timeout'
  /** Its stream broke or reported an error before the first token. */
  | 'stream';

/**
 * One provider's failure to start an answer. `fallover` says whether the reason is the provider's
 * own (bad key, no credits, rate limit, its server down, unreachable, model missing), so the next
 * provider may be asked; a malformed request fails identically everywhere and is not.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  /** See the constructor's `options.sentence`. */
  readonly sentence: string | undefined;
  constructor(
    readonly provider: string,
    readonly failure: ProviderFailure,
    readonly fallover: boolean,
    /** The HTTP status when `failure` is `status`. */
    readonly status?: number,
    /** The provider's machine-readable `error.code` (or Anthropic's `error.type`), when it sent one. */
    readonly code?: string,
    options?: ErrorOptions & {
      /**
       * The provider's own sentence, keys taken out, for a failure that is the site's to fix (no
       * credits, a bad key, a rate limit, a model not theirs): said to the person who asked by
       * `forPerson`, never logged and never in `message`.
       */
      sentence?: string | undefined;
    },
  ) {
    // For whoever debugs it; the person is told `forPerson`, in their words.
    super(`provider ${provider}: ${failure}${status === undefined ? '' : ` ${String(status)}`}${code === undefined ? '' : ` (${code})`}`, options);
    this.sentence = options?.sentence;
  }

  /** What the person who asked is told, in `words`: which provider failed how, and its own sentence when it is theirs to act on. */
  forPerson(words: Words): string {
    const fill = { provider: this.provider, status: `${String(this.status)}${this.code === undefined ? '' : ` (${this.code})`}` };
    const said = say(words, `requests.provider-${this.failure}`, fill);
    return this.sentence === undefined ? said : say(words, 'requests.provider-said', { failure: said, sentence: this.sentence });
  }
}

/** Every provider was asked and none answered, each for a reason of its own. */
export class NoProviderAnswered extends Error {
  override readonly name = 'NoProviderAnswered';
  constructor(readonly failures: readonly ProviderError[]) {
    super(`no provider answered: ${failures.map((failure) => failure.message).join('; ')}`, { cause: failures.at(-1) });
  }

  /** What the person who asked is told, in `words`: each provider's failure, its own sentence kept. */
  forPerson(words: Words): string {
    return say(words, 'requests.no-provider-answered', { failures: this.failures.map((failure) => failure.forPerson(words)).join(' ') });
  }
}

/** An upstream stream that broke after its first token, or sent an error object mid-answer. */
export class UpstreamStreamError extends Error {
  override readonly name = 'UpstreamStreamError';
}

/** An error as a log line names it: its class's name, never its message (which may quote what was said). */
export function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
