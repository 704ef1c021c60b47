/**
 * The door's ledger over the database: every answer is admitted under the person's rolling windows
 * and the site's over everybody before anything is bought, holding its per-answer spend ceiling while
 * it runs, and settled with what it really cost. Admission is race-free across servers (see
 * `db/reservations.ts`). The paid voice reserves and settles here too (`reserveSpend`), counting
 * against spend ceilings only.
 *
 * The person's windows and the site's are reserved in one transaction, the person's lock taken
 * first and the site's second by every caller (so two cannot wait on each other); a turn the site
 * refuses leaves nothing of the person's reservation behind.
 */
import type { SpendAsk, SpendLedger } from './chat/admission';
import type { AnswerSpend, DoorLedger, Reservation } from './chat/doorTypes';
import type { Database } from './db/database';
import type { Queryable } from './db/queryable';
import type { PersonLimits, Refusal } from './db/limits';
import { releaseReservation, reserveAnswer, SITE_BOT, SITE_PERSON } from './db/reservations';
import { recordUsage } from './db/usage';
import type { GrantClaims } from './grants';

/** How long past an answer's own ceiling its unsettled spend hold still counts: time to settle it. */
export const SPEND_HOLD_GRACE_MS = 30_000;

export interface LedgerOptions {
  /** The site's windows over everybody (`CONFAB_SITE_LIMITS`); unset: none. */
  site?: PersonLimits;
}

/** The door's ledger, which also reserves spend that is not an answer against the person's and the site's spend ceilings. */
export type DatabaseLedger = DoorLedger<GrantClaims> & SpendLedger;

/** The site refused after the person's reservation was written: thrown to roll the transaction back. */
class SiteRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super('The site refused the turn.');
  }
}

/** Only the spend ceilings of `limits`: what counts for something that is not an answer. */
function spendOnly(limits: PersonLimits): PersonLimits {
  const kept: PersonLimits = {};
  for (const [window, ceiling] of Object.entries(limits) as [keyof PersonLimits, PersonLimits[keyof PersonLimits]][]) {
    if (typeof ceiling === 'object' && ceiling.spend !== undefined) kept[window] = { spend: ceiling.spend };
  }
  return kept;
}

/** A refusal as the door has it: the sentence in English, and what it said, to say again in the person's words. */
function refusedBy(refusal: Refusal, by: 'person' | 'site', nowMs: number): Reservation {
  const { window, kind, ceiling, freesAt } = refusal;
  return { ok: false, sentence: refusal.sentence, by, ceiling: { window, kind, ceiling, freesAtMs: freesAt === null ? null : freesAt.getTime(), nowMs } };
}

interface Reserved {
  person: string;
  bot: string;
  startedAt: Date;
  /** The site's reservation for the same turn, when the site has windows. */
  site: string | undefined;
}

export function databaseLedger(db: Database, options: LedgerOptions = {}): DatabaseLedger {
  const unsettled = new Map<string, Reserved>();
  const site = options.site;

  /** What one reservation asks for: spend, and whether it is an answer (counted against answer ceilings too). */
  type ReserveAsk = SpendAsk & { answer: boolean };
  const reserveBoth = async (ask: ReserveAsk): Promise<Reservation> => {
    const now = new Date(ask.nowMs);
    const shared = { spendHoldUsd: ask.spendHoldUsd, spendHoldMs: ask.spendHoldMs, now, answer: ask.answer };
    let reserved: { mine: string; site: string | undefined } | { refused: Refusal };
    try {
      reserved = await db.asServer(async (tx) => {
        const mine = await reserveAnswer(tx, { person: ask.person, bot: ask.bot, limits: ask.limits, ...shared });
        if (!mine.ok) return { refused: mine };
        if (site === undefined) return { mine: mine.reservationId, site: undefined };
        const limits = ask.answer ? site : spendOnly(site);
        const everybody = await reserveAnswer(tx, { person: SITE_PERSON, bot: SITE_BOT, limits, ...shared });
        if (!everybody.ok) throw new SiteRefused(everybody);
        return { mine: mine.reservationId, site: everybody.reservationId };
      });
    } catch (error) {
      if (error instanceof SiteRefused) return refusedBy(error.refusal, 'site', ask.nowMs);
      throw error;
    }
    if ('refused' in reserved) return refusedBy(reserved.refused, 'person', ask.nowMs);
    unsettled.set(reserved.mine, { person: ask.person, bot: ask.bot, startedAt: now, site: reserved.site });
    return { ok: true, reservation: reserved.mine };
  };

  const record = (tx: Queryable, reservationId: string, person: string, bot: string, startedAt: Date, spend: AnswerSpend & { provider: string; model: string }) =>
    recordUsage(tx, {
      reservationId,
      person,
      bot,
      startedAt,
      provider: spend.provider,
      model: spend.model,
      promptTokens: spend.promptTokens,
      completionTokens: spend.completionTokens,
      costUsd: spend.costUsd,
    });

  return {
    reserve({ grant, nowMs }) {
      return reserveBoth({
        person: grant.person,
        bot: grant.bot,
        limits: grant.limits,
        spendHoldUsd: grant.limits.spend,
        // The answer is cut at its minutes; its spend hold lapses a little after, settled or not.
        spendHoldMs: grant.limits.minutes * 60_000 + SPEND_HOLD_GRACE_MS,
        nowMs,
        answer: true,
      });
    },
    reserveSpend(ask) {
      return reserveBoth({ ...ask, limits: spendOnly(ask.limits), answer: false });
    },
    async settle(reservation: string, spend: AnswerSpend) {
      const turn = unsettled.get(reservation);
      unsettled.delete(reservation);
      if (!turn) return;
      const { provider, model } = spend;
      await db.asServer(async (tx) => {
        if (provider === null || model === null) {
          // Nothing was bought: the spend holds go, and the turn still counts as an answer.
          await releaseReservation(tx, reservation);
          if (turn.site !== undefined) await releaseReservation(tx, turn.site);
          return;
        }
        const bought = { ...spend, provider, model };
        await record(tx, reservation, turn.person, turn.bot, turn.startedAt, bought);
        if (turn.site !== undefined) await record(tx, turn.site, SITE_PERSON, SITE_BOT, turn.startedAt, bought);
      });
    },
  };
}
