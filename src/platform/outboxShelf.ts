/**
 * Where the outbox's records wait: this device's IndexedDB, or memory for as long as the page is
 * open when the device keeps nothing (private browsing).
 */
import type { LocalDb } from './localDb';
import type { OutboxRecord, ThreadLink } from './localSchema';
import { sayWord } from './words';

/** This device's storage failed while keeping or reading what waits to be sent. */
export class OutboxStorageError extends Error {
  override readonly name = 'OutboxStorageError';
}

/** Where records wait: IndexedDB, or memory when the device keeps nothing. */
export interface Shelf {
  readonly durable: boolean;
  add(record: OutboxRecord): Promise<void>;
  link(link: ThreadLink): Promise<void>;
  /** The oldest record waiting, with its key. */
  first(): Promise<{ key: number; record: OutboxRecord } | undefined>;
  /** Removes a record, and records `link` with it in one step (a thread that now exists). */
  settle(key: number, link?: ThreadLink): Promise<void>;
  serverThreadId(localThreadId: string): Promise<string | undefined>;
  lineCount(): Promise<number>;
}

/** The outbox on IndexedDB when it answers, else in memory. */
export async function openShelf(open: () => Promise<LocalDb>): Promise<Shelf> {
  const shelf = dbShelf(open);
  try {
    await shelf.lineCount();
    return shelf;
  } catch {
    // No storage is a fact of this browser, not a failure: lines still go, they just cannot wait past the page.
    return memoryShelf();
  }
}

async function kept<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    throw new OutboxStorageError(sayWord('page-lines.storage-failed'), { cause });
  }
}

function dbShelf(open: () => Promise<LocalDb>): Shelf {
  return {
    durable: true,
    add: (record) =>
      kept(async () => {
        await (await open()).add('outbox', record);
      }),
    link: (link) =>
      kept(async () => {
        await (await open()).put('threads', link);
      }),
    first: () =>
      kept(async () => {
        const cursor = await (await open()).transaction('outbox').store.openCursor();
        return cursor === null ? undefined : { key: cursor.key, record: cursor.value };
      }),
    settle: (key, link) =>
      kept(async () => {
        const tx = (await open()).transaction(['outbox', 'threads'], 'readwrite');
        await Promise.all([
          tx.objectStore('outbox').delete(key),
          link === undefined ? undefined : tx.objectStore('threads').put(link),
          tx.done,
        ]);
      }),
    serverThreadId: (localThreadId) => kept(async () => (await (await open()).get('threads', localThreadId))?.serverThreadId),
    lineCount: () => kept(async () => (await open()).countFromIndex('outbox', 'kind', 'line')),
  };
}

function memoryShelf(): Shelf {
  const records = new Map<number, OutboxRecord>();
  const links = new Map<string, string>();
  let nextKey = 1;
  return {
    durable: false,
    add: (record) => {
      records.set(nextKey++, record);
      return Promise.resolve();
    },
    link: ({ localThreadId, serverThreadId }) => {
      links.set(localThreadId, serverThreadId);
      return Promise.resolve();
    },
    // A Map iterates in insertion order, which is key order here.
    first: () => {
      const [entry] = records;
      return Promise.resolve(entry === undefined ? undefined : { key: entry[0], record: entry[1] });
    },
    settle: (key, link) => {
      records.delete(key);
      if (link !== undefined) links.set(link.localThreadId, link.serverThreadId);
      return Promise.resolve();
    },
    serverThreadId: (localThreadId) => Promise.resolve(links.get(localThreadId)),
    lineCount: () => Promise.resolve([...records.values()].filter((record) => record.kind === 'line').length),
  };
}
