/**
 * The browser's Web Lock for one person's active page with one bot (`navigator.locks`): of the tabs
 * of this browser, the one that has it is the active page. Taking it with `steal` is the handover:
 * the tab that had it has its lock request rejected, which is its signal to go quiet (`onStolen`).
 *
 * Web Locks exist only in a secure context (https, or localhost); without them `webActiveLock`
 * answers null and the server alone referees.
 */

export interface ActiveLock {
  /** Whether this tab has the lock now. */
  readonly owned: boolean;
  /**
   * Takes the lock: from whichever tab has it (`steal`), or only if no tab does. Resolves whether
   * this tab has it.
   */
  take(options: { steal: boolean }): Promise<boolean>;
  /** Lets the lock go (another tab waiting for it gets nothing: nobody waits). */
  release(): void;
  /** Calls `listener` when another tab steals the lock from this one. */
  onStolen(listener: () => void): () => void;
}

export function webActiveLock(name: string, locks: LockManager | undefined = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks): ActiveLock | null {
  if (locks === undefined) return null;
  const stolen = new Set<() => void>();
  let owned = false;
  /** Ends the callback the lock was granted to, which lets it go. */
  let letGo: (() => void) | null = null;
  /** Counts takes, so a late rejection of an old request is not taken for a steal of a newer one. */
  let generation = 0;

  return {
    get owned() {
      return owned;
    },
    take({ steal }) {
      if (owned) return Promise.resolve(true);
      const mine = ++generation;
      return new Promise<boolean>((resolve) => {
        locks
          .request(name, steal ? { steal: true } : { ifAvailable: true }, (lock) => {
            if (lock === null || mine !== generation) {
              resolve(false);
              return undefined;
            }
            owned = true;
            resolve(true);
            return new Promise<void>((release) => {
              letGo = release;
            });
          })
          .catch(() => {
            // The request the lock was granted to is rejected when another tab steals it.
            const wasOwned = owned && mine === generation;
            if (wasOwned) {
              owned = false;
              letGo = null;
              for (const listener of stolen) listener();
            }
            resolve(false);
          });
      });
    },
    release() {
      generation += 1;
      owned = false;
      letGo?.();
      letGo = null;
    },
    onStolen(listener) {
      stolen.add(listener);
      return () => stolen.delete(listener);
    },
  };
}
