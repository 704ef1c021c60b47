/**
 * The door's ledger over the database: every answer is admitted under the person's rolling windows
 * and the site's over everybody before anything is bought, holding its per-answer spend ceiling while
 * it runs, and settled with what it really cost. Admission is race-free across servers (see
 * `db/reservations.ts`). The paid voice reserves and settles here too (`reserveSpend`), counting
 * against spend ceilings only.
 *
 * The person's windows and the site's are reserved in one transaction, the person's lock taken
 * first and the site's second by every caller (so two cannot wait on each other); a turn the site
 * refuses leaves nothing of the person's reservation behind. The one gate (`gate.ts`) reserves every
 * kind of effect here (`reserveEffect`), adding the background share's windows and an outside app's
 * after the site's, locked in that order too.
 */
import type { SpendAsk, SpendLedger } from './chat/admission';
import type { AnswerSpend, DoorLedger, RefusedBy, Reservation } from './chat/doorTypes';
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
export type DatabaseLedger = DoorLedger<GrantClaims> & SpendLedger & {
  /**
   * Reserves one effect against the person's windows, the site's and `more` (the gate's), in one
   * transaction: `tx` when given (the caller's, which must be the server's), else one of its own.
   */
  reserveEffect(ask: EffectReserveAsk, tx?: Queryable): Promise<Reservation>;
  /** Settles a reservation, in `tx` when given. */
  settle(reservation: string, spend: AnswerSpend, tx?: Queryable): Promise<void>;
};

/** Other windows than the person's refused after the person's reservation was written: thrown to roll the transaction back. */
class SiteRefused extends Error {
  constructor(
    readonly refusal: Refusal,
    readonly by: RefusedBy,
  ) {
    super(refusal.sentence);
  }
}

/** Only the spend ceilings of `limits`: what counts for something that is not an answer. */
export function spendOnly(limits: PersonLimits): PersonLimits {
  const kept: PersonLimits = {};
  for (const [window, ceiling] of Object.entries(limits) as [keyof PersonLimits, PersonLimits[keyof PersonLimits]][]) {
    if (typeof ceiling === 'object' && ceiling.spend !== undefined) kept[window] = { spend: ceiling.spend };
  }
  return kept;
}

/**
 * The first window of `limits` whose spend ceiling one hold of `spendHoldUsd` is already over: no
 * such effect could ever fit there, so it is refused, freeing never. A bot's own windows are checked
 * against its hold when its file is read (`validateLimits`), but the gate's (the background share,
 * a share of the site's; an app's) are derived from the site's settings, not the bot's: a bot whose
 * hold is bigger is refused there with their sentence, never an error.
 */
function neverFits(limits: PersonLimits, spendHoldUsd: number): Omit<Refusal, 'sentence'> | undefined {
  for (const [window, ceiling] of Object.entries(limits) as [keyof PersonLimits, PersonLimits[keyof PersonLimits]][]) {
    const spend = typeof ceiling === 'object' ? ceiling.spend : undefined;
    if (spend !== undefined && spend > 0 && spendHoldUsd > spend) return { ok: false, window, kind: 'spend', ceiling: spend, freesAt: null };
  }
  return undefined;
}

/** A refusal as the door has it: the sentence in English, and what it said, to say again in the person's words. */
function refusedBy(refusal: Refusal, by: RefusedBy, nowMs: number): Reservation {
  const { window, kind, ceiling, freesAt } = refusal;
  return { ok: false, sentence: refusal.sentence, by, ceiling: { window, kind, ceiling, freesAtMs: freesAt === null ? null : freesAt.getTime(), nowMs } };
}

/** One reservation of a turn or an effect, to settle: whose it is and when it began. */
interface Held {
  id: string;
  person: string;
  bot: string;
}

interface Reserved {
  startedAt: Date;
  /** Every owner's reservation for the same effect: the person's first, then the site's, the background share's, an app's. */
  held: Held[];
}

/**
 * One more owner whose windows an effect must also fit, beside the person's and the site's: the
 * background share of the site's windows (`*background`), an outside app's own calls (`*app`, the
 * app's name as its bot). Reserved after the site, in this order, by every caller.
 */
export interface MoreWindows {
  owner: string;
  bot: string;
  limits: PersonLimits;
  /** Whether the effect counts here as one answer (an app's calls) or only spends. */
  answer: boolean;
  /** Who refused, when these windows are full: said in the refusal and in `x-confab-refused`. */
  by: RefusedBy;
  /** The sentence for a refusal of these windows, in place of the person's. */
  sentence: (refusal: Refusal, now: Date) => string;
}

/** What one reservation asks for, with the windows beyond the person's and the site's. */
type EffectReserveAsk = SpendAsk & {
  /** Whether it counts against answer ceilings (a turn) or only spends (a sentence, a run's step). */
  answer: boolean;
  more?: readonly MoreWindows[];
};

export function databaseLedger(db: Database, options: LedgerOptions = {}): DatabaseLedger {
  const unsettled = new Map<string, Reserved>();
  const site = options.site;

  /** Runs `work` in `tx` when the caller holds one (a schedule's firing, beside the run it starts), else in a transaction of its own. */
  // In the caller's transaction, a savepoint stands for the transaction of its own: a refusal by the
  // site's windows leaves nothing of the person's reservation behind there either.
  const within = async <T>(tx: Queryable | undefined, work: (tx: Queryable) => Promise<T>): Promise<T> => {
    if (tx === undefined) return db.asServer(work);
    await tx.query('savepoint effect');
    try {
      const done = await work(tx);
      await tx.query('release savepoint effect');
      return done;
    } catch (error) {
      await tx.query('rollback to savepoint effect');
      throw error;
    }
  };

  const reserveBoth = async (ask: EffectReserveAsk, outer?: Queryable): Promise<Reservation> => {
    const now = new Date(ask.nowMs);
    const shared = { spendHoldUsd: ask.spendHoldUsd, spendHoldMs: ask.spendHoldMs, now };
    let reserved: { held: Held[] } | { refused: Refusal };
    try {
      reserved = await within(outer, async (tx) => {
        const mine = await reserveAnswer(tx, { person: ask.person, bot: ask.bot, limits: ask.limits, answer: ask.answer, ...shared });
        if (!mine.ok) return { refused: mine };
        const held: Held[] = [{ id: mine.reservationId, person: ask.person, bot: ask.bot }];
        if (site !== undefined) {
          const limits = ask.answer ? site : spendOnly(site);
          const everybody = await reserveAnswer(tx, { person: SITE_PERSON, bot: SITE_BOT, limits, answer: ask.answer, ...shared });
          if (!everybody.ok) throw new SiteRefused(everybody, 'site');
          held.push({ id: everybody.reservationId, person: SITE_PERSON, bot: SITE_BOT });
        }
        for (const more of ask.more ?? []) {
          const never = neverFits(more.limits, ask.spendHoldUsd);
          if (never !== undefined) throw new SiteRefused({ ...never, sentence: more.sentence({ ...never, sentence: '' }, now) }, more.by);
          const theirs = await reserveAnswer(tx, { person: more.owner, bot: more.bot, limits: more.limits, answer: more.answer, ...shared });
          if (!theirs.ok) throw new SiteRefused({ ...theirs, sentence: more.sentence(theirs, now) }, more.by);
          held.push({ id: theirs.reservationId, person: more.owner, bot: more.bot });
        }
        return { held };
      });
    } catch (error) {
      if (error instanceof SiteRefused) return refusedBy(error.refusal, error.by, ask.nowMs);
      throw error;
    }
    if ('refused' in reserved) return refusedBy(reserved.refused, 'person', ask.nowMs);
    const [mine] = reserved.held as [Held, ...Held[]];
    unsettled.set(mine.id, { startedAt: now, held: reserved.held });
    return { ok: true, reservation: mine.id };
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
    reserveEffect: reserveBoth,
    async settle(reservation: string, spend: AnswerSpend, outer?: Queryable) {
      const turn = unsettled.get(reservation);
      unsettled.delete(reservation);
      if (!turn) return;
      const { provider, model } = spend;
      await within(outer, async (tx) => {
        if (provider === null || model === null) {
          // Nothing was bought: the spend holds go, and the turn still counts as an answer.
          for (const held of turn.held) await releaseReservation(tx, held.id);
          return;
        }
        const bought = { ...spend, provider, model };
        for (const held of turn.held) await record(tx, held.id, held.person, held.bot, turn.startedAt, bought);
      });
    },
  };
}
