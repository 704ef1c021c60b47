/**
 * The chat door's failures, one class per boundary. Each keeps its `cause`; none carries a key,
 * a question or an answer in its message, because messages end up in responses (logs name only the
 * class). A provider's own sentence about a failure the site can fix is kept apart (`sentence`).
 */

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
    super(
      failure === 'status'
        ? `The provider "${provider}" answered ${String(status)}${code === undefined ? '' : ` (${code})`}.`
        : `The provider "${provider}" ${FAILURE_WORDS[failure]}.`,
      options,
    );
    this.sentence = options?.sentence;
  }

  /** What the person who asked is told: `message`, and the provider's own sentence when it is theirs to act on. */
  forPerson(): string {
    return this.sentence === undefined ? this.message : `${this.message.replace(/\.$/, '')}: “${this.sentence}”`;
  }
}

const FAILURE_WORDS: Readonly<Record<Exclude<ProviderFailure, 'status'>, string>> = {
  unreachable: 'could not be reached',
  timeout: 'sent no first token in time',
  stream: 'broke off before its first token',
};

/** Every provider was asked and none answered, each for a reason of its own. */
export class NoProviderAnswered extends Error {
  override readonly name = 'NoProviderAnswered';
  constructor(readonly failures: readonly ProviderError[]) {
    // The provider's own sentences are in this message: it goes to the person who asked, and is never logged (`nameOf`).
    super(`No provider answered: ${failures.map((failure) => failure.forPerson()).join(' ')}`, {
      cause: failures.at(-1),
    });
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
