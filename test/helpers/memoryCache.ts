/**
 * Cache Storage for tests under Node, which has no `caches`: the `match`, `put` and `delete` of one
 * `Cache`, held as bytes and headers by request URL. Like the real thing it stores a snapshot of the
 * body, hands out a fresh `Response` on each match, and refuses non-GET requests. `damage` lets a
 * test spoil a stored entry the way a disk or an interrupted write could.
 */
export class MemoryCache implements Pick<Cache, 'match' | 'put' | 'delete'> {
  readonly entries = new Map<string, { body: Uint8Array<ArrayBuffer>; headers: [string, string][] }>();
  /** How many `put` calls succeeded. */
  puts = 0;
  /** Set to make every `put` reject with this, as a full quota would. */
  failPutWith: Error | undefined = undefined;

  private static urlOf(request: RequestInfo | URL): string {
    if (typeof request === 'string') return request;
    return request instanceof URL ? request.href : request.url;
  }

  match(request: RequestInfo | URL): Promise<Response | undefined> {
    const entry = this.entries.get(MemoryCache.urlOf(request));
    return Promise.resolve(entry === undefined ? undefined : new Response(entry.body.slice(), { headers: entry.headers }));
  }

  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    if (typeof request === 'object' && 'method' in request && request.method !== 'GET') {
      throw new TypeError('Cache.put only stores GET requests.');
    }
    if (this.failPutWith !== undefined) throw this.failPutWith;
    const body = new Uint8Array(await response.arrayBuffer());
    this.entries.set(MemoryCache.urlOf(request), { body, headers: [...response.headers.entries()] });
    this.puts += 1;
  }

  delete(request: RequestInfo | URL): Promise<boolean> {
    return Promise.resolve(this.entries.delete(MemoryCache.urlOf(request)));
  }

  /** Replaces a stored body, keeping its headers; `change` gets a copy and returns the new bytes. */
  damage(key: string, change: (body: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>): void {
    const entry = this.entries.get(key);
    if (entry === undefined) throw new Error(`nothing is cached under ${key}`);
    this.entries.set(key, { ...entry, body: change(entry.body.slice()) });
  }
}
