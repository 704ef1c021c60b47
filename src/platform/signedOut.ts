/**
 * A device removed from the person's Devices elsewhere is signed out at its next request: the
 * server answers it with `x-confab-signed-out: 1` (and as a newcomer). This wraps the page's fetch
 * to notice that header, so the page can say so; once seen, it stays said for this page's life.
 */

import { SIGNED_OUT_HEADER } from '../../common/people';

let signedOut = false;
const listeners = new Set<() => void>();

/** `fetcher`, noticing the header on every answer it gets. */
export function watchingSignedOut(fetcher: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetcher(input, init);
    if (response.headers.get(SIGNED_OUT_HEADER) === '1' && !signedOut) {
      signedOut = true;
      for (const listener of listeners) listener();
    }
    return response;
  };
}

/** Whether this device has been told it was signed out, since the page loaded. */
export function wasSignedOut(): boolean {
  return signedOut;
}

/** Calls `listener` when this device is first told it was signed out; answers a way to stop. */
export function onSignedOut(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
