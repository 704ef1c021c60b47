/**
 * The page's one IndexedDB database, `confab` (its stores in localSchema.ts): opening it, and the
 * page's shared connection.
 */
import { wrap } from 'idb';
import type { IDBPDatabase } from 'idb';
import { LOCAL_DB_NAME, LOCAL_DB_VERSION, upgrade } from './localSchema';
import type { LocalDbSchema } from './localSchema';
import { sayWord } from './words';

/** An open connection to the page's database. */
export type LocalDb = IDBPDatabase<LocalDbSchema>;

/** IndexedDB is missing or would not open (private browsing, storage turned off, a quota). */
export class LocalDbError extends Error {
  override readonly name = 'LocalDbError';
}

/**
 * Opens (creating or upgrading) the database through `factory`, by default the browser's own
 * (`null` where it has none). Rejects with `LocalDbError` when there is no IndexedDB or it refuses
 * to open.
 */
export function openLocalDb(factory: IDBFactory | null = browserIndexedDb(), name: string = LOCAL_DB_NAME): Promise<LocalDb> {
  if (factory === null) {
    return Promise.reject(new LocalDbError(sayWord('page-lines.no-indexeddb')));
  }
  let request: IDBOpenDBRequest;
  try {
    request = factory.open(name, LOCAL_DB_VERSION);
  } catch (cause) {
    return Promise.reject(new LocalDbError(sayWord('page-lines.indexeddb-refused'), { cause }));
  }
  request.addEventListener('upgradeneeded', (event) => {
    upgrade(request.result, event.oldVersion);
  });
  return (wrap(request) as Promise<LocalDb>).then(
    (db) => {
      // Yield to a newer version of the page opening the database, so an upgrade in one tab is never blocked by another left open.
      db.addEventListener('versionchange', () => {
        db.close();
      });
      return db;
    },
    (cause: unknown) => {
      throw new LocalDbError(sayWord('page-lines.indexeddb-failed'), { cause });
    },
  );
}

let shared: Promise<LocalDb> | undefined;

/**
 * The page's shared connection, opened on first use. A failure is not remembered, and neither is a
 * connection that closes (another tab upgrading, the browser clearing storage): the next call opens
 * afresh.
 */
export function localDb(): Promise<LocalDb> {
  if (shared !== undefined) return shared;
  const opening = openLocalDb().then(
    (db) => {
      const forget = () => {
        if (shared === opening) shared = undefined;
      };
      db.addEventListener('versionchange', forget);
      db.addEventListener('close', forget);
      return db;
    },
    (error: unknown) => {
      if (shared === opening) shared = undefined;
      throw error;
    },
  );
  shared = opening;
  return opening;
}

/** The browser's IndexedDB, or `null` where there is none or touching it throws (some private modes). */
function browserIndexedDb(): IDBFactory | null {
  try {
    return (globalThis as { indexedDB?: IDBFactory | null }).indexedDB ?? null;
  } catch {
    return null;
  }
}
