/**
 * Providers tried in order. The first is asked; when it fails before its first token for a reason
 * that is its own, the next is asked instead, and so on. A failure that is not its own (a
 * malformed request) stops there: asking again would only be two bills and twice the wait.
 */
import { NoProviderAnswered, ProviderError } from './errors';
import { openUpstream } from './upstream';
import type { Attempt, OpenOptions, OpenUpstream } from './upstream';
import type { PromptMessage } from './providerWire';

export interface FalloverOptions extends OpenOptions {
  /** Told of each provider passed over, before the next is asked. */
  onFallover: (error: ProviderError) => void;
}

/**
 * The first of `attempts` to start an answer. Rejects with the `ProviderError` that is not a
 * provider's own, with `NoProviderAnswered` when every one failed for its own reasons, or with
 * `signal.reason` once `signal` has aborted.
 */
export async function openFirstAnswering(attempts: readonly Attempt[], messages: readonly PromptMessage[], options: FalloverOptions): Promise<OpenUpstream> {
  const failures: ProviderError[] = [];
  for (const attempt of attempts) {
    try {
      return await openUpstream(attempt, messages, options);
    } catch (error) {
      if (!(error instanceof ProviderError) || !error.fallover) throw error;
      failures.push(error);
      options.onFallover(error);
    }
  }
  throw new NoProviderAnswered(failures);
}
