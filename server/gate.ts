/**
 * The one gate: every effect that spends the site's money or reaches out of the server passes one
 * admission before it happens, and is settled — one ledger row — once it has. The kinds are one list
 * (`EFFECT_KINDS`); a test walks it and drives each kind's real path, so a kind added here without a
 * path through `admit`, or a path that skips it, is found.
 *
 * What `admit` applies, in order, to every kind:
 * 1. `AGENTS_LIVE`: an effect bought with the site's keys (a provider's model, the paid voice, an
 *    outside app called with a credential from the environment) is refused `not-live` unless it is set;
 * 2. the person's windows for the bot (its file's `limits`), answer ceilings for what is an answer
 *    (a turn) and spend ceilings for everything;
 * 3. the site's windows over everybody (`CONFAB_SITE_LIMITS`);
 * 4. for background work (work nobody is waiting for: a run's steps, a schedule's firing, an
 *    outside call made by a run), the background share of the site's windows
 *    (`CONFAB_BACKGROUND_SHARE`), so a person asking now always has the rest;
 * 5. for an outside call, the app file's own `limits` (calls per window) over everybody.
 *
 * All windows are reserved in one transaction (`ledger.ts`, locks taken person, site, background,
 * app in that order by every caller); a refusal anywhere leaves nothing reserved, and carries one
 * sentence from the words files (`## ceilings`) and who refused (`x-confab-refused` where there is
 * an HTTP response). What is admitted holds its most possible cost until it is settled.
 */
import { checkOption } from '../common/options';
import type { Admission, Refused } from './chat/admission';
import { settledOnce } from './chat/admission';
import type { AnswerSpend, DoorLedger, Reservation } from './chat/doorTypes';
import type { PersonLimits, Refusal } from './db/limits';
import type { Queryable } from './db/queryable';
import { LIMIT_WINDOWS } from './db/limits';
import { refusalSentence } from './words/refusalWords';
import type { GrantClaims } from './grants';
import type { DatabaseLedger, MoreWindows } from './ledger';
import { SPEND_HOLD_GRACE_MS, spendOnly } from './ledger';
import { VerbError } from './verbs/errors';
import type { Caller, CallerEffects, OutsideCallAsk } from './verbs/verb';
import { shippedWords } from './words/loadWords';
import { say } from './words/words';
import type { Words } from './words/words';

/** Every kind of effect that spends or reaches outside. Each has a path through `admit`; none other may spend. */
export const EFFECT_KINDS = ['turn', 'runStep', 'paidSentence', 'outsideCall', 'scheduleFiring'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/**
 * What each kind is. `background`: work nobody is waiting for, held to the background share of the
 * site's windows (an outside call is background when a run makes it, and a person's when a turn or
 * an MCP client does). `answer`: counted against answer ceilings as well as spend.
 */
const EFFECTS: Readonly<Record<EffectKind, { background: boolean | 'when a run calls'; answer: boolean }>> = Object.freeze({
  turn: { background: false, answer: true },
  runStep: { background: true, answer: false },
  paidSentence: { background: false, answer: false },
  outsideCall: { background: 'when a run calls', answer: false },
  scheduleFiring: { background: true, answer: false },
});

/** The share of the site's windows background work may use when none is set: half. */
export const BACKGROUND_SHARE_DEFAULT = 0.5;

/** The owner the background share is counted under, as the site is under `*site` (migration 014). */
export const BACKGROUND_PERSON = '*background';
/** The owner an outside app's own calls are counted under; the app's name is its bot. */
const APP_PERSON = '*app';

/** One effect to admit. */
interface EffectAsk {
  kind: EffectKind;
  person: string;
  bot: string;
  /** The person's windows for this bot (its file's `limits`). */
  limits: PersonLimits;
  /** The most it can cost, USD, held until it is settled. */
  spendHoldUsd: number;
  /** How long the hold may stand unsettled, in ms. */
  spendHoldMs: number;
  /** Whether it is bought with the site's keys: then refused unless `AGENTS_LIVE=1`. */
  siteKeys: boolean;
  /** An outside call made by a run: background work. Ignored for the other kinds, which are what `EFFECTS` says. */
  byRun?: boolean;
  /** An outside call's app: its name, and its file's own windows (`limits`, calls per window). */
  app?: { name: string; limits?: PersonLimits };
  nowMs: number;
}

export interface GateDeps {
  ledger: DatabaseLedger;
  /** `AGENTS_LIVE=1`. */
  live: boolean;
  /** The site's windows (`CONFAB_SITE_LIMITS`); unset: none, and no background share either. */
  site?: PersonLimits;
  /** `CONFAB_BACKGROUND_SHARE`: the share of the site's windows background work may use, 0 to 1. Default 0.5. */
  backgroundShare?: number;
  /** The windows of the bot called `slug` (its file's `limits`); undefined for a bot not found. */
  limitsOf: (slug: string) => (PersonLimits & { spend: number; minutes: number }) | undefined;
  clock: () => number;
  /** What refusals say. Default: the shipped English. */
  words?: Words;
}

export interface Gate {
  /** Admits one effect, or says why not. Rejects only when the ledger cannot be reached. */
  admit(ask: EffectAsk): Promise<Admission | Refused>;
  /**
   * `admit`, inside the server's transaction `tx` that makes the effect (a schedule's firing writes
   * its run there): the reservation, and its settlement, commit or roll back with it.
   */
  admitIn(tx: Queryable, ask: EffectAsk): Promise<{ ok: true; settle(spend: AnswerSpend): Promise<void> } | Refused>;
  /** The door's ledger: each turn admitted here. */
  doorLedger(): DoorLedger<GrantClaims>;
  /** What a verb handler acting for `caller` may spend (`VerbContext.effects`). */
  effectsOf(caller: Caller, byRun: boolean): CallerEffects;
}

/** `limits` with every ceiling at `share` of itself: answers rounded down, spend to the cent below. */
function shareOf(limits: PersonLimits, share: number): PersonLimits {
  const out: PersonLimits = {};
  for (const window of LIMIT_WINDOWS) {
    const ceiling = limits[window];
    if (ceiling === undefined) continue;
    out[window] = {
      ...(ceiling.answers === undefined ? {} : { answers: Math.floor(ceiling.answers * share) }),
      ...(ceiling.spend === undefined ? {} : { spend: Math.floor(ceiling.spend * share * 100) / 100 }),
    };
  }
  return out;
}

/** A settlement for an effect that is not a model's answer: what it cost, under `provider` and `model`. */
export function spentOn(provider: string, model: string, costUsd: number, nowMs: number): AnswerSpend {
  return { provider, model, promptTokens: 0, completionTokens: 0, ended: 'stop', estimated: false, costUsd, priced: true, nowMs };
}

export function createGate(deps: GateDeps): Gate {
  const words = deps.words ?? shippedWords().wordsIn('en');
  const share = checkOption('gate.backgroundShare', deps.backgroundShare ?? BACKGROUND_SHARE_DEFAULT, { min: 0, max: 1 });
  const background: MoreWindows | undefined =
    deps.site === undefined || share >= 1
      ? undefined
      : { owner: BACKGROUND_PERSON, bot: '*', limits: shareOf(deps.site, share), answer: false, by: 'background', sentence: (refusal, now) => refusalSentence(refusal, now, 'background', words) };

  /** The one admission: live, then every window the kind is held to, reserved in one transaction. */
  async function reserve(ask: EffectAsk, tx?: Queryable): Promise<Reservation> {
    const kind = EFFECTS[ask.kind];
    if (ask.siteKeys && !deps.live) return { ok: false, by: 'not-live', sentence: say(words, 'ceilings.not-live', { app: ask.app?.name ?? 'that' }) };
    const isBackground = kind.background === true || (kind.background !== false && ask.byRun === true);
    const more: MoreWindows[] = [];
    if (isBackground && background !== undefined) more.push({ ...background, limits: kind.answer ? background.limits : spendOnly(background.limits), answer: kind.answer });
    const app = ask.app;
    if (app?.limits !== undefined) {
      more.push({ owner: APP_PERSON, bot: app.name, limits: app.limits, answer: true, by: 'app', sentence: (refusal: Refusal, now: Date) => refusalSentence(refusal, now, { app: app.name }, words) });
    }
    return deps.ledger.reserveEffect({
      person: ask.person,
      bot: ask.bot,
      limits: kind.answer ? ask.limits : spendOnly(ask.limits),
      spendHoldUsd: ask.spendHoldUsd,
      spendHoldMs: ask.spendHoldMs,
      nowMs: ask.nowMs,
      answer: kind.answer,
      more,
    }, tx);
  }

  const settle = (reservation: string, spend: AnswerSpend) => deps.ledger.settle(reservation, spend);

  async function admit(ask: EffectAsk): Promise<Admission | Refused> {
    return settledOnce(await reserve(ask), { settle });
  }

  async function admitIn(tx: Queryable, ask: EffectAsk): Promise<{ ok: true; settle(spend: AnswerSpend): Promise<void> } | Refused> {
    const reserved = await reserve(ask, tx);
    if (!reserved.ok) return { ok: false, sentence: reserved.sentence, by: reserved.by, ...(reserved.ceiling === undefined ? {} : { ceiling: reserved.ceiling }) };
    return { ok: true, settle: (spend) => deps.ledger.settle(reserved.reservation, spend, tx) };
  }

  function doorLedger(): DoorLedger<GrantClaims> {
    return {
      reserve: ({ grant, nowMs }) =>
        reserve({
          kind: 'turn',
          person: grant.person,
          bot: grant.bot,
          limits: grant.limits,
          spendHoldUsd: grant.limits.spend,
          // The answer is cut at its minutes; its spend hold lapses a little after, settled or not.
          spendHoldMs: grant.limits.minutes * 60_000 + SPEND_HOLD_GRACE_MS,
          // A turn asks the stand-in when the site is not live (`chatDoor`): never refused `not-live`.
          siteKeys: false,
          nowMs,
        }),
      settle,
    };
  }

  function effectsOf(caller: Caller, byRun: boolean): CallerEffects {
    return {
      async outsideCall(call, tool) {
        const limits = deps.limitsOf(caller.bot);
        if (limits === undefined) throw new VerbError('not_in_scope');
        const nowMs = deps.clock();
        const admitted = await admit({
          kind: 'outsideCall',
          person: caller.person,
          bot: caller.bot,
          limits,
          spendHoldUsd: call.pricePerCallUsd,
          spendHoldMs: limits.minutes * 60_000 + SPEND_HOLD_GRACE_MS,
          siteKeys: call.credentialed,
          byRun,
          app: { name: call.app, ...(call.limits === undefined ? {} : { limits: call.limits }) },
          nowMs,
        });
        if (!admitted.ok) throw new GateRefusedCall(admitted);
        return {
          // The call went out: what the app may bill is counted, whatever it answered.
          settle: () =>
            admitted.settle(spentOn(`app:${call.app}`, tool, call.pricePerCallUsd, deps.clock())).catch((error: unknown) => {
              // The call has been made and answered; a ledger that failed now is logged, not said.
              console.error(JSON.stringify({ event: 'gate.settle-failed', kind: 'outsideCall', error: error instanceof Error ? error.name : typeof error }));
            }),
        };
      },
    };
  }

  return { admit, admitIn, doorLedger, effectsOf };
}

/** An outside call the gate refused: the executor's failure, carrying the gate's sentence and who refused. */
class GateRefusedCall extends VerbError {
  readonly by: Refused['by'];
  constructor(refused: Refused) {
    super('rate_limited', refused.sentence);
    this.by = refused.by;
  }
}

/** The effects a handler was given, or a refusal: a verb that reaches outside runs only inside the executor, behind the gate. */
function effectsIn(context: { effects?: CallerEffects }): CallerEffects {
  // A handler run outside the executor is a developer's mistake: the person hears only the code's own word.
  if (context.effects === undefined) throw new VerbError('execution_failed', undefined, { cause: new Error('That reaches outside this server, and nothing here admitted it, so it was not done.') });
  return context.effects;
}

/**
 * One outside call of `tool`, admitted by the gate through `context`'s effects, then made, then
 * settled however it ended: the one way an outside app's tool or operation is called (a verb's
 * handler, a narrator's read).
 */
export async function outsideCall<T>(context: { effects?: CallerEffects }, ask: OutsideCallAsk, tool: string, call: () => Promise<T>): Promise<T> {
  const admitted = await effectsIn(context).outsideCall(ask, tool);
  try {
    return await call();
  } finally {
    await admitted.settle();
  }
}
