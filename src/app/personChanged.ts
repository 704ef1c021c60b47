/**
 * This page's person became someone more than they were — a passkey made here ("Keep this on your
 * devices") turns a browser's cookie into a person whose work may run while they are away — so what
 * the page offered only to such a person (a bot's wakes) is asked for again, without a reload.
 */
const listeners = new Set<() => void>();

/** Tells every listener on this page. */
export function personChanged(): void {
  for (const listener of listeners) listener();
}

/** Calls `then` each time this page's person changes; answers what stops it. */
export function onPersonChanged(then: () => void): () => void {
  listeners.add(then);
  return () => {
    listeners.delete(then);
  };
}
