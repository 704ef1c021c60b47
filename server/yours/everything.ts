/**
 * Everything a person has, over the one list of the tables that hold it (`personTables.ts`): taken
 * with them as one document, or forgotten in one transaction. Both as the server (`asServer`), since
 * some of these tables no person's transaction may read (passkeys, device sessions, the ledger's).
 */
import type { Database } from '../db/database';
import { PERSON_TABLES } from './personTables';

/** "Take it with you": one document, a section per table, read in one transaction so it agrees with itself. */
export interface Everything {
  /** When it was taken, ISO 8601. */
  exportedAt: string;
  person: string;
  /** Each table's rows of theirs, by the table's name, in `PERSON_TABLES` order. */
  tables: Record<string, unknown[]>;
}

export function everythingOf(db: Database, person: string, nowMs: number): Promise<Everything> {
  return db.asServer(async (tx) => {
    const tables: Record<string, unknown[]> = {};
    for (const { table, whose, shown, order } of PERSON_TABLES) {
      tables[table] = (await tx.query(`select ${shown} from ${table} where ${whose} order by ${order}`, [person])).rows;
    }
    return { exportedAt: new Date(nowMs).toISOString(), person, tables };
  });
}

/**
 * "Forget me": every row of the person's in every table, their passkeys, devices and `people` row
 * included, deleted in one transaction — all of it or, failing, none. A person who owned the server
 * leaves it with no owner until the next passkey person comes.
 */
export function forgetEverything(db: Database, person: string): Promise<void> {
  return db.asServer(async (tx) => {
    for (const { table, whose } of [...PERSON_TABLES].reverse()) await tx.query(`delete from ${table} where ${whose}`, [person]);
  });
}
