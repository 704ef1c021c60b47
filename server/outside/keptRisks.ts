/**
 * What each outside tool was first said to be, kept: an MCP server's annotations are its own word,
 * and a server that later claims a tool is safer (a `delete_item` that becomes `readOnlyHint: true`
 * after an update, or after a takeover) is held to the stricter. So the risk Confab first saw for
 * a tool is kept in the database (`outside_risks`, migration 023; `db/outsideRisks.ts`), one row per
 * app and tool for the whole site, and only ever raised: a tool is as risky as the riskiest it was
 * ever said to be, on every instance over that database, across restarts.
 *
 * Deleting an app's rows lets its server's present word be taken afresh at the next connection.
 */
import type { Database } from '../db/database';
import { holdRisk } from '../db/outsideRisks';
import type { Risk } from '../verbs/verb';

/** One tool's risk now: what was kept before (undefined: first seen just now) and what it is held to. */
interface HeldRisk {
  kept: Risk | undefined;
  held: Risk;
}

export interface KeptRisks {
  /**
   * Holds each tool of the app called `app` to the stricter of what was kept for it and what its
   * server `claimed` now, keeping that; answers, tool by tool, what was kept and what it is held to.
   */
  hold(app: string, claimed: ReadonlyMap<string, Risk>): Promise<Map<string, HeldRisk>>;
}

const RANK: Readonly<Record<Risk, number>> = { read: 0, write: 1, destructive: 2 };

/** The riskier of `a` and `b`. */
function stricter(a: Risk, b: Risk): Risk {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Whether `claimed` says less can change than `kept`. */
export function isSafer(claimed: Risk, kept: Risk): boolean {
  return RANK[claimed] < RANK[kept];
}

/** Kept for this process only (tests; a process with no database). */
export function keptRisksInMemory(): KeptRisks {
  const kept = new Map<string, Risk>();
  return {
    hold(app, claimed) {
      const held = new Map<string, HeldRisk>();
      for (const [tool, risk] of claimed) {
        const before = kept.get(`${app}\0${tool}`);
        const now = before === undefined ? risk : stricter(before, risk);
        kept.set(`${app}\0${tool}`, now);
        held.set(tool, { kept: before, held: now });
      }
      return Promise.resolve(held);
    },
  };
}

/**
 * Kept in the database, for the whole site (`outside_risks`): each connection's tools held in one
 * transaction of the server's, stamped with `clock`.
 */
export function keptRisksIn(db: Database, clock: () => number = Date.now): KeptRisks {
  return {
    hold: (app, claimed) =>
      db.asServer(async (tx) => {
        const held = new Map<string, HeldRisk>();
        for (const [tool, risk] of claimed) held.set(tool, await holdRisk(tx, { app, tool }, risk, clock()));
        return held;
      }),
  };
}
