/**
 * A device that stops being its person (they signed out here, or were forgotten) starts over: what
 * this browser kept of them (the reader's choices per bot, lines not yet sent, which conversation
 * each local one became) is deleted, so nothing of theirs is sent later under whoever comes next,
 * and the page loads afresh.
 */
import { LOCAL_DB_NAME } from './localSchema';

/** Deletes the page's IndexedDB database, then loads `path` (default: this page again). */
export async function startOver(path?: string): Promise<void> {
  await deleteLocalDb();
  if (path === undefined) location.reload();
  else location.assign(path);
}

/** Settles once the database is gone, or the browser has said it cannot be deleted now (another tab holds it open). */
function deleteLocalDb(): Promise<void> {
  return new Promise((resolve) => {
    let request: IDBOpenDBRequest;
    try {
      request = indexedDB.deleteDatabase(LOCAL_DB_NAME);
    } catch {
      // No IndexedDB here: nothing was kept.
      resolve();
      return;
    }
    request.onsuccess = () => {
      resolve();
    };
    request.onerror = () => {
      resolve();
    };
    // Every open connection of the page closes on `versionchange` (localDb.ts); a tab that does not
    // yet lets the deletion finish once it closes.
    request.onblocked = () => {
      resolve();
    };
  });
}
