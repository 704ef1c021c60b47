/**
 * Why the on-device voice could not load, by kind, as it crosses from the worker to the page: the
 * page tells a person the kind in their words (`page-voice.could-not-start-<kind>`), and what went
 * wrong in detail stays in the console for whoever debugs it.
 *
 * - `unreachable`: the files' host could not be reached.
 * - `refused`: it refused them (HTTP 401 or 403).
 * - `busy`: it was busy or failing (HTTP 429 or 5xx).
 * - `missing`: it does not hold them where the site says (any other HTTP error).
 * - `damaged`: they came, but not as the pins or the model's contract say.
 * - `unsupported`: this browser could run the model on none of its runtimes.
 * - `failed`: anything else.
 */
const LOAD_FAILURES = ['unreachable', 'refused', 'busy', 'missing', 'damaged', 'unsupported', 'failed'] as const;
export type LoadFailure = (typeof LOAD_FAILURES)[number];

/**
 * A load that failed, as the worker rejects it. Comlink carries an error's name and message only, so
 * the message is the kind itself — a code, never a sentence; the worker has written the detail to
 * the console.
 */
export class VoiceLoadError extends Error {
  override readonly name = 'VoiceLoadError';
  constructor(
    readonly failure: LoadFailure,
    options?: ErrorOptions,
  ) {
    super(failure, options);
  }
}

/** The kind of a failed load: a `VoiceLoadError`'s, whether comlink rebuilt it or not; `failed` for anything else. */
export function loadFailureOf(error: unknown): LoadFailure {
  if (!(error instanceof Error) || error.name !== 'VoiceLoadError') return 'failed';
  return LOAD_FAILURES.find((kind) => kind === error.message) ?? 'failed';
}
