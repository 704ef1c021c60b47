/**
 * The risk each outside tool was first said to have, kept for the whole site (migration 023): one
 * row per app and tool, only ever raised (a trigger refuses a lower one, whoever writes). Every
 * instance over one database reads and raises the same rows, so a server that tells one instance a
 * tool is safer than another instance first saw it is held to the stricter there too. Server only
 * (`asServer`): no person reads or writes it.
 */
import type { Queryable } from './queryable';
import { iso } from './rows';

/** What a tool may change, least to most: the verbs' `Risk`, as the table keeps it. */
export type KeptRisk = 'read' | 'write' | 'destructive';

/** One tool's risk now: what was kept before (undefined: first seen just now) and what it is held to. */
export interface HeldRisk {
  kept: KeptRisk | undefined;
  held: KeptRisk;
}

/** The risk kept for `tool` of `app`, or undefined when it was never seen. */
export async function keptRisk(tx: Queryable, app: string, tool: string): Promise<KeptRisk | undefined> {
  const { rows } = await tx.query<{ risk: KeptRisk }>('select risk from outside_risks where app = $1 and tool = $2', [app, tool]);
  return rows[0]?.risk;
}

/**
 * Holds `tool` of `app` to the stricter of what was kept and what its server `claimed` now at
 * `nowMs`, keeping that: the first claim is kept as it is; a riskier one raises it; a safer one
 * changes nothing. The row is locked while it is decided, so two instances holding the same tool
 * at once both end at the stricter of their claims. Run in one transaction per call.
 */
export async function holdRisk(tx: Queryable, tool: { app: string; tool: string }, claimed: KeptRisk, nowMs: number): Promise<HeldRisk> {
  const at = iso(nowMs);
  const first = await tx.query('insert into outside_risks (app, tool, risk, first_seen_at) values ($1, $2, $3, $4) on conflict (app, tool) do nothing returning risk', [tool.app, tool.tool, claimed, at]);
  if (first.rows.length > 0) return { kept: undefined, held: claimed };
  const { rows } = await tx.query<{ risk: KeptRisk }>('select risk from outside_risks where app = $1 and tool = $2 for update', [tool.app, tool.tool]);
  const kept = rows[0]?.risk;
  if (kept === undefined) throw new Error(`The kept risk of ${tool.app}.${tool.tool} was there a moment ago and is not now.`);
  const raised = await tx.query<{ risk: KeptRisk }>(
    'update outside_risks set risk = $3, raised_at = $4 where app = $1 and tool = $2 and confab_risk_rank($3) > confab_risk_rank(risk) returning risk',
    [tool.app, tool.tool, claimed, at],
  );
  return { kept, held: raised.rows[0]?.risk ?? kept };
}
