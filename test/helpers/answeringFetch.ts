/** A fetch stand-in for the page's API clients' tests: one answer for every request, and each call kept. */

/** A request the stand-in was sent. */
export interface FetchCall {
  url: string;
  init?: RequestInit;
}

/** A `fetch` that answers every request with `status` and `body` as JSON (no body when undefined). */
export function answering(status: number, body?: unknown): { fetcher: typeof fetch; calls: FetchCall[] } {
  const calls: FetchCall[] = [];
  const fetcher = ((url: string, init?: RequestInit) => {
    calls.push({ url, init });
    return Promise.resolve(new Response(body === undefined ? null : JSON.stringify(body), { status }));
  }) as typeof fetch;
  return { fetcher, calls };
}
