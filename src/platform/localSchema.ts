/**
 * The schema of the page's IndexedDB database, `confab`: its stores, what each record holds, and
 * the upgrade that brings an older database to the current version. `settings` holds the reader's
 * choices per bot; `outbox` the thread creations and lines not yet on the server, in the order
 * they were said; `threads` which server conversation each local thread id became.
 */
import type { DBSchema } from 'idb';

/** The database's name. */
export const LOCAL_DB_NAME = 'confab';

/** The schema version; `upgrade` brings any older database up to it. */
export const LOCAL_DB_VERSION = 1;

/** One line as the server takes it. */
export interface OutboxLine {
  who: 'person' | 'assistant';
  /** What was said (for an interrupted answer: what had been spoken). Never blank. */
  text: string;
  /** The page's own id for the line; sending it twice keeps one line. */
  clientId: string;
  /** An answer cut short by the person speaking over it. */
  interrupted?: boolean;
}

/** A waiting thread creation: the conversation `localThreadId`, with the bot `bot` (a slug). */
interface ThreadCreation {
  kind: 'thread';
  localThreadId: string;
  bot: string;
}

/** A waiting line of the conversation `localThreadId`. */
interface LineDelivery {
  kind: 'line';
  localThreadId: string;
  line: OutboxLine;
}

/** What waits in the outbox, kept in the order said. */
export type OutboxRecord = ThreadCreation | LineDelivery;

/** Which server conversation a local thread id is. */
export interface ThreadLink {
  localThreadId: string;
  serverThreadId: string;
}

/** The stores and their keys. */
export interface LocalDbSchema extends DBSchema {
  /** Keyed by bot slug. Values are whatever an earlier page wrote: read them through `reconcileSettings`. */
  settings: { key: string; value: unknown };
  /** Keyed by an increasing number, so the order kept is the order said. */
  outbox: { key: number; value: OutboxRecord; indexes: { kind: OutboxRecord['kind'] } };
  /** Keyed by the local thread id. */
  threads: { key: string; value: ThreadLink };
}

/** Each step takes a database from the version before it; a fresh database runs them all. */
export function upgrade(db: IDBDatabase, oldVersion: number): void {
  if (oldVersion < 1) {
    db.createObjectStore('settings');
    const outbox = db.createObjectStore('outbox', { autoIncrement: true });
    outbox.createIndex('kind', 'kind');
    db.createObjectStore('threads', { keyPath: 'localThreadId' });
  }
}
