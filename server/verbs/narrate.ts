/**
 * Narration: the sentences of the narrators that follow a verb that succeeded ("That's 5 things on
 * your shopping list."), in order, each under its own short deadline. A narrator is a courtesy: one
 * that fails or is late is dropped (and logged by name), and the conversation goes on without it.
 */
import type { Database } from '../db/database';
import type { Queryable } from '../db/queryable';
import { VerbError } from './errors';
import type { Registry } from './registry';
import { NO_TRANSACTION } from './remoteCall';
import type { EffectsGate } from './underway';
import type { AppServices, Caller, Ran } from './verb';

/** How long one narrator may take, in ms. */
export const NARRATOR_MS = 300;

/** The log line of a narrator dropped: its verb and the name of what it threw, never its message. */
export interface NarratorFailed {
  event: 'narrator.failed';
  verb: string;
  error: string;
}

export interface NarrateDeps {
  registry: Pick<Registry, 'narratorsFor'>;
  db: Database;
  services: AppServices;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** How long one narrator may take, in ms. */
  narratorMs: number;
  log: (line: NarratorFailed) => void;
  /** The one gate, which admits a remote narrator's outside read; unset, such a read reaches nothing. */
  gate?: EffectsGate;
}

/** The sentences of the narrators that follow `ran`, for `caller`; none once `signal` has aborted. */
export async function narrate(deps: NarrateDeps, ran: Ran, caller: Caller, signal?: AbortSignal): Promise<string[]> {
  const narrators = deps.registry.narratorsFor(ran.verb);
  if (narrators.length === 0) return [];
  const sentences: string[] = [];
  for (const narrator of narrators) {
    const deadline = AbortSignal.any([AbortSignal.timeout(deps.narratorMs), ...(signal === undefined ? [] : [signal])]);
    try {
      // A remote narrator's read reaches outside: it is admitted by the gate, as a verb's call is.
      const effects = narrator.remote === true ? deps.gate?.effectsOf(caller, false) : undefined;
      const context = (tx: Queryable) => ({ ...caller, signal: deadline, nowMs: deps.clock(), tx, services: deps.services, ...(effects === undefined ? {} : { effects }) });
      // A remote narrator's read goes out of the server: no transaction is held while it waits.
      const said = await raceSignal(
        narrator.remote === true ? narrator.narrate(ran, context(NO_TRANSACTION)) : deps.db.asPerson(caller.person, (tx) => narrator.narrate(ran, context(tx))),
        deadline,
      );
      if (typeof said === 'string' && said.trim() !== '') sentences.push(said.trim());
    } catch (error) {
      // A narrator is a courtesy: the verb has run, and the conversation goes on without it.
      deps.log({ event: 'narrator.failed', verb: ran.verb, error: error instanceof Error ? error.name : typeof error });
    }
  }
  return sentences;
}

/** `work`'s answer, or `timed_out` as soon as `signal` aborts. */
function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      reject(new VerbError('timed_out'));
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', stop);
    });
  });
}
