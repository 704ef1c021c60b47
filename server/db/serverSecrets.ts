/**
 * The `server_secrets` table (migration 030): secrets the server makes once for every instance over
 * the database. The server's alone: no person's transaction may read it. Run as the server (`asServer`).
 */
import type { Queryable } from './queryable';
import { onlyRow } from './rows';

/**
 * The secret kept as `name`: `made` when this is the first instance to ask, else the one kept
 * before — so instances starting at once agree on whichever landed first (the second waits for the
 * first to commit, then reads its row).
 */
export async function sharedSecret(tx: Queryable, name: string, made: string): Promise<string> {
  await tx.query('insert into server_secrets (name, value) values ($1, $2) on conflict (name) do nothing', [name, made]);
  const { rows } = await tx.query<{ value: string }>('select value from server_secrets where name = $1', [name]);
  return onlyRow(rows, `Reading the ${name} secret`).value;
}
