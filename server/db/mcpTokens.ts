/**
 * Personal MCP tokens. Making, listing and revoking run in the person's transaction (`asPerson`), so
 * the policies confine them to the person's own tokens. `tokenByHash` and `markTokenUsed` run as the
 * server (`asServer`): a request's Bearer is how its person becomes known, so nobody is known yet.
 * Only the token's SHA-256 is ever stored or compared; the token itself is never passed here.
 */
import type { Queryable } from './queryable';
import { isUuid, onlyRow } from './rows';

export interface McpTokenRow {
  id: string;
  name: string;
  /** The bots it acts through, in the person's order. */
  bots: string[];
  /** The person's IANA time zone when it was made. */
  timeZone: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A live token found by its hash: who it acts for, and through which bots. */
export interface McpTokenBearer {
  id: string;
  person: string;
  bots: string[];
  timeZone: string;
  lastUsedAt: Date | null;
}

export interface NewMcpToken {
  /** The transaction's person; a token in anybody else's name is refused by the policy. */
  person: string;
  name: string;
  bots: readonly string[];
  timeZone: string;
  /** SHA-256 of the token, lower-case hex. */
  tokenHash: string;
}

/** Most live tokens one person may hold: enough for every client they use, few enough to list. */
export const LIVE_TOKENS_MAX = 20;
/** Most tokens listed, live and revoked together, newest first. */
const LISTED_TOKENS_MAX = 100;

interface Row {
  id: string;
  name: string;
  bots: string[];
  time_zone: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, bots, time_zone, created_at, last_used_at, revoked_at';

const fromRow = (row: Row): McpTokenRow => ({
  id: row.id,
  name: row.name,
  bots: row.bots,
  timeZone: row.time_zone,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

/** Keeps a new token's hash; its plain value is the caller's to show once. */
export async function makeToken(tx: Queryable, token: NewMcpToken): Promise<McpTokenRow> {
  const { rows } = await tx.query<Row>(
    `insert into mcp_tokens (person, name, bots, time_zone, token_hash) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [token.person, token.name, [...token.bots], token.timeZone, token.tokenHash],
  );
  return fromRow(onlyRow(rows, 'Making an MCP token'));
}

/** How many of the person's tokens are not revoked. */
export async function countLiveTokens(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ count: number }>('select count(*)::int as count from mcp_tokens where revoked_at is null');
  return onlyRow(rows, 'Counting MCP tokens').count;
}

/** The person's tokens, live and revoked, newest first. */
export async function listTokens(tx: Queryable): Promise<McpTokenRow[]> {
  const { rows } = await tx.query<Row>(`select ${COLUMNS} from mcp_tokens order by created_at desc, id limit $1`, [LISTED_TOKENS_MAX]);
  return rows.map(fromRow);
}

/** Revokes one live token of the person's; false when there is no such live token of theirs. */
export async function revokeToken(tx: Queryable, id: string, atMs: number): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rows } = await tx.query('update mcp_tokens set revoked_at = $2 where id = $1 and revoked_at is null returning id', [id, new Date(atMs)]);
  return rows.length === 1;
}

/** As the server: the live token whose SHA-256 is `tokenHash`, or undefined (unknown and revoked alike). */
export async function tokenByHash(tx: Queryable, tokenHash: string): Promise<McpTokenBearer | undefined> {
  const { rows } = await tx.query<{ id: string; person: string; bots: string[]; time_zone: string; last_used_at: Date | null }>(
    'select id, person, bots, time_zone, last_used_at from mcp_tokens where token_hash = $1 and revoked_at is null',
    [tokenHash],
  );
  const row = rows[0];
  return row === undefined ? undefined : { id: row.id, person: row.person, bots: row.bots, timeZone: row.time_zone, lastUsedAt: row.last_used_at };
}

/** As the server: notes that a token was used at `atMs`. */
export async function markTokenUsed(tx: Queryable, id: string, atMs: number): Promise<void> {
  await tx.query('update mcp_tokens set last_used_at = $2 where id = $1', [id, new Date(atMs)]);
}
