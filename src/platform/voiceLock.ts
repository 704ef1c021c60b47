/**
 * The browser's Web Lock for one person's voice with one bot (`navigator.locks`): of the tabs of
 * this browser, the one holding it has the voice. Taking it with `steal` is the handover: the tab
 * that held it has its lock request rejected, which is its signal to go quiet (`onStolen`).
 *
 * Web Locks exist only in a secure context (https, or localhost); without them `webVoiceLock`
 * answers null and the server alone referees.
 */

export interface VoiceLock {
  /** Whether this tab holds the lock now. */
  readonly held: boolean;
  /**
   * Takes the lock: from whichever tab holds it (`steal`), or only if no tab does. Resolves whether
   * this tab holds it.
   */
  take(options: { steal: boolean }): Promise<boolean>;
  /** Lets the lock go (another tab waiting for it gets nothing: nobody waits). */
  release(): void;
  /** Calls `listener` when another tab steals the lock from this one. */
  onStolen(listener: () => void): () => void;
}

export function webVoiceLock(name: string, locks: LockManager | undefined = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks): VoiceLock | null {
  if (locks === undefined) return null;
  const stolen = new Set<() => void>();
  let held = false;
  /** Ends the callback that holds the lock, which lets it go. */
  let letGo: (() => void) | null = null;
  /** Counts takes, so a late rejection of an old request is not taken for a steal of a newer one. */
  let generation = 0;

  return {
    get held() {
      return held;
    },
    take({ steal }) {
      if (held) return Promise.resolve(true);
      const mine = ++generation;
      return new Promise<boolean>((resolve) => {
        locks
          .request(name, steal ? { steal: true } : { ifAvailable: true }, (lock) => {
            if (lock === null || mine !== generation) {
              resolve(false);
              return undefined;
            }
            held = true;
            resolve(true);
            return new Promise<void>((release) => {
              letGo = release;
            });
          })
          .catch(() => {
            // The request that held the lock is rejected when another tab steals it.
            const wasHeld = held && mine === generation;
            if (wasHeld) {
              held = false;
              letGo = null;
              for (const listener of stolen) listener();
            }
            resolve(false);
          });
      });
    },
    release() {
      generation += 1;
      held = false;
      letGo?.();
      letGo = null;
    },
    onStolen(listener) {
      stolen.add(listener);
      return () => stolen.delete(listener);
    },
  };
}
