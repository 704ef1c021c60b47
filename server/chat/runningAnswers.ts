/**
 * The answers a server is streaming now, so that a stop can be graceful: no new turn is admitted,
 * answers under way get a grace period to finish, and whatever is still running then is cut with a
 * sentence saying why (`AnswerStop('shutdown')`), settled like any other answer.
 */
import { AnswerStop } from './answer';

export class RunningAnswers {
  readonly #running = new Map<AbortController, () => void>();
  #stopping = false;
  #idle: (() => void) | undefined;

  /** True once `stop` has begun: the door admits no new turn. */
  get stopping(): boolean {
    return this.#stopping;
  }

  get size(): number {
    return this.#running.size;
  }

  /** Counts one answer as running until the returned function is called (once it has been settled). */
  track(controller: AbortController): () => void {
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      this.#running.delete(controller);
      if (this.#running.size === 0) this.#idle?.();
    };
    this.#running.set(controller, finished);
    return finished;
  }

  /**
   * Admits nothing new, waits up to `graceMs` for the running answers to end, cuts the rest and
   * waits up to `settleMs` for them to be settled. Resolves with how many were cut.
   */
  async stop(graceMs: number, settleMs = 2_000): Promise<number> {
    this.#stopping = true;
    if (!(await this.#whenIdle(graceMs))) {
      const cut = this.#running.size;
      for (const controller of this.#running.keys()) controller.abort(new AnswerStop('shutdown'));
      await this.#whenIdle(settleMs);
      return cut;
    }
    return 0;
  }

  /** True once nothing is running, false if `ms` passed first. */
  #whenIdle(ms: number): Promise<boolean> {
    if (this.#running.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#idle = undefined;
        resolve(false);
      }, ms);
      this.#idle = () => {
        clearTimeout(timer);
        this.#idle = undefined;
        resolve(true);
      };
    });
  }
}
