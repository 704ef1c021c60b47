/**
 * A turn's money, read top to bottom: reserve it against the person's and the site's windows, ask
 * (the door's part), settle what it used — exactly once, however the turn ended. Nothing is asked
 * before the reservation is made, so there is never a turn to account for that was refused after
 * it was bought.
 */
import type { PersonLimits } from '../db/limits';
import type { Answer, AnswerSpend, DoorGrant, DoorLedger, DoorLogLine, Ending, ReachedCeiling, RefusedBy, Reservation } from './doorTypes';
import { nameOf } from './errors';
import { costUsd, estimateTokens, priceOf } from './prices';
import type { PriceTable, TokenUsage } from './prices';

/** A turn the ledger would not admit: said as the answer, in `sentence`. */
export interface Refused {
  ok: false;
  sentence: string;
  by: RefusedBy;
  /** What was reached, to say it in the person's words. */
  ceiling?: ReachedCeiling;
}

/** A turn reserved against the windows until it is settled. */
export interface Admission {
  ok: true;
  /**
   * Records what the turn used, once it has ended. The first call settles; any later call throws
   * (`SettledTwice`) without touching the ledger, so a second settlement can never be recorded.
   */
  settle(spend: AnswerSpend): Promise<void>;
  /** Whether `settle` has been called. */
  readonly settled: boolean;
}

/**
 * A second settlement of one admission: a fault in the caller, not in the ledger, which its name
 * says (a turn is settled exactly once). Nobody is told it: the door answers it as a server error.
 */
export class SettledTwice extends Error {
  override readonly name = 'SettledTwice';
}

/** Spend that is not an answer (a sentence of the paid voice), reserved against spend ceilings only. */
export interface SpendAsk {
  person: string;
  bot: string;
  /** The bot's windows; only their spend ceilings count. */
  limits: PersonLimits;
  /** The spend hold while it runs, in USD: the most it can cost. */
  spendHoldUsd: number;
  /** How long the spend hold may stand unsettled, in ms. */
  spendHoldMs: number;
  nowMs: number;
}

/** A ledger that reserves spend that is not an answer, settled as answers are. */
export interface SpendLedger {
  reserveSpend(ask: SpendAsk): Promise<Reservation>;
  settle(reservation: string, spend: AnswerSpend): Promise<void>;
}

/** Reserves one turn for `grant` at `nowMs`; a refusal says why and whose windows refused. Rejects when the ledger cannot be reached. */
export async function admit<G extends DoorGrant>(ledger: DoorLedger<G>, grant: G, nowMs: number): Promise<Admission | Refused> {
  return settledOnce(await ledger.reserve({ grant, nowMs }), ledger);
}

/** Reserves spend that is not an answer, as `admit` reserves a turn. */
export async function admitSpend(ledger: SpendLedger, ask: SpendAsk): Promise<Admission | Refused> {
  return settledOnce(await ledger.reserveSpend(ask), ledger);
}

/** A reservation made (or refused) as an admission, settled exactly once through `ledger`. */
export function settledOnce(reserved: Reservation, ledger: Pick<SpendLedger, 'settle'>): Admission | Refused {
  if (!reserved.ok) return { ok: false, sentence: reserved.sentence, by: reserved.by, ...(reserved.ceiling === undefined ? {} : { ceiling: reserved.ceiling }) };
  const reservation = reserved.reservation;
  let settled = false;
  return {
    ok: true,
    get settled() {
      return settled;
    },
    settle(spend) {
      if (settled) return Promise.reject(new SettledTwice());
      settled = true;
      return ledger.settle(reservation, spend);
    },
  };
}

/** What settling a turn needs besides its admission: the prices, the log, and when the turn began and ended. */
export interface Settling {
  prices: PriceTable;
  log: (line: DoorLogLine) => void;
  startedMs: number;
  nowMs: number;
}

/**
 * Settles what `answer` used (none: nothing answered) once the turn has `ending`: its usage as the
 * provider reported it, or estimated from the characters, priced by the model that answered, and
 * logged as `answer.ended`. A ledger that fails is logged, not thrown: the answer has been given
 * and there is nobody left to tell. Resolves to the usage settled.
 */
export async function settleTurn(admitted: Admission, answer: Answer | undefined, ending: Ending, how: Settling): Promise<TokenUsage> {
  const bought = answer?.bought === true;
  const usage = ending.usage ?? { promptTokens: answer?.promptTokens ?? 0, completionTokens: estimateTokens(ending.modelChars) };
  const price = bought ? priceOf(how.prices, answer.model) : undefined;
  if (bought && price === undefined) how.log({ event: 'answer.unpriced', model: answer.model });
  const spent: AnswerSpend = {
    ...usage,
    provider: answer?.provider ?? null,
    model: answer === undefined ? null : answer.model,
    ended: ending.ended,
    estimated: ending.usage === undefined,
    // An acting answer priced call by call, by what answered each, when every call reported usage.
    costUsd: bought && ending.usage !== undefined && ending.costUsd !== undefined ? ending.costUsd : costUsd(price, usage),
    priced: !bought || price !== undefined,
    nowMs: how.nowMs,
  };
  const { provider, model, ended, promptTokens, completionTokens, estimated } = spent;
  how.log({ event: 'answer.ended', provider, model, ended, promptTokens, completionTokens, estimated, costUsd: spent.costUsd, ms: how.nowMs - how.startedMs });
  try {
    await admitted.settle(spent);
  } catch (error) {
    how.log({ event: 'settle.failed', error: nameOf(error) });
  }
  return usage;
}
