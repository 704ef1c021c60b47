/**
 * The page's side of presence, for the server's tests: a person's browser (its cookie), and a
 * page's stream read as it arrives, message by message, with a wait for the next one that matches.
 */
import type { Hono } from 'hono';
import { presenceMessageOf } from '../../../common/presence/protocol';
import type { PageRef, PresenceMessage, Seat, WindowEvent } from '../../../common/presence/protocol';

export class Person {
  cookie = '';
  constructor(private readonly app: Hono) {}

  /** The same person on another server: the cookie goes along. */
  on(app: Hono): Person {
    const twin = new Person(app);
    twin.cookie = this.cookie;
    return twin;
  }

  async call(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
    if (this.cookie) headers.cookie = this.cookie;
    const res = await this.app.request(path, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.signal ? { signal: init.signal } : {}),
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] ?? '';
    return res;
  }

  /** Signs in (the person cookie) by starting a conversation. */
  async start(bot = 'demo'): Promise<string> {
    const res = await this.call('/api/start', { body: { bot } });
    if (res.status !== 200) throw new Error(`start answered ${res.status}`);
    return ((await res.json()) as { grant: string }).grant;
  }

  async claim(page: PageRef, bot = 'demo'): Promise<Seat> {
    const res = await this.call('/api/presence/active', { body: { bot, ...page } });
    if (res.status !== 200) throw new Error(`claim answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { seat: Seat }).seat;
  }

  async publish(page: string, events: WindowEvent[], live: unknown = null, bot = 'demo'): Promise<{ seqs: number[]; seat: Seat | null }> {
    const res = await this.call('/api/presence/events', { body: { bot, page, events, live } });
    if (res.status !== 200) throw new Error(`publish answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { seqs: number[]; seat: Seat | null };
  }

  async open(page: PageRef, options: { since?: number; bot?: string } = {}): Promise<PageStream> {
    const controller = new AbortController();
    const query = new URLSearchParams({ bot: options.bot ?? 'demo', page: page.page, device: page.device, ...(options.since === undefined ? {} : { since: String(options.since) }) });
    const res = await this.call(`/api/presence?${query.toString()}`, { signal: controller.signal });
    if (res.status !== 200 || res.body === null) throw new Error(`the stream answered ${res.status}: ${await res.text()}`);
    return new PageStream(res.body, controller);
  }
}

/** One page's stream: every message, in order, and waits for the next one that matches. */
export class PageStream {
  readonly messages: PresenceMessage[] = [];
  private read = 0;
  private readonly waiters = new Set<() => void>();
  closed = false;
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly controller: AbortController,
  ) {
    void this.pump(body);
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    this.reader = reader;
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        const blocks = buffered.split('\n\n');
        buffered = blocks.pop() ?? '';
        for (const block of blocks) {
          const lines = block.split('\n');
          const name = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
          const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
          if (name === undefined || data === '') continue;
          const message = presenceMessageOf(name, JSON.parse(data) as unknown);
          if (message === undefined) throw new Error(`a message the page would not understand: ${name} ${data}`);
          this.messages.push(message);
          for (const wake of this.waiters) wake();
        }
      }
    } catch {
      // Aborted by the test.
    } finally {
      this.closed = true;
      for (const wake of this.waiters) wake();
    }
  }

  /** The next message (after those already taken) that `matches`, within `timeoutMs`. */
  async next<T extends PresenceMessage['type']>(type: T, matches: (message: Extract<PresenceMessage, { type: T }>) => boolean = () => true, timeoutMs = 5_000): Promise<Extract<PresenceMessage, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.read < this.messages.length) {
        const message = this.messages[this.read++] as PresenceMessage;
        if (message.type === type && matches(message as Extract<PresenceMessage, { type: T }>)) return message as Extract<PresenceMessage, { type: T }>;
      }
      if (this.closed) throw new Error(`the stream closed before a ${type} message came`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} message within ${timeoutMs} ms; had ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  /** The window events received so far, in order. */
  events(): WindowEvent[] {
    return this.messages.flatMap((m) => (m.type === 'event' ? [m.sequenced.event] : []));
  }

  seqs(): number[] {
    return this.messages.flatMap((m) => (m.type === 'event' ? [m.sequenced.seq] : []));
  }

  /** The page goes away: its connection closes, as a closed tab's does. */
  close(): void {
    this.controller.abort();
    void this.reader?.cancel().catch(() => undefined);
  }
}
