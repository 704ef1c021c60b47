/**
 * A person of `npm run bench -- scale-out`, over real HTTP to several servers at once: their cookie,
 * carried to whichever instance they ask, a grant per instance, turns through the chat door as the
 * page sends them (a conversation, a turn id a retry repeats), and their pages' presence streams.
 * Every answer's status is tallied, so a stranger's refusal (401/403) anywhere is counted.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { PageStream } from '../server/presence/presenceClient';
import type { PageRef, PresenceMessage, Seat, WindowEvent } from '../../common/presence/protocol';

/** What every person's requests were answered with, by status. */
export class Tally {
  readonly byStatus = new Map<number, number>();
  note(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }
  /** Answers that took the person for a stranger: 401 and 403. */
  strangers(): number {
    return (this.byStatus.get(401) ?? 0) + (this.byStatus.get(403) ?? 0);
  }
}

/** One turn through the door: its status, the answer's text, and when its first token came. */
export interface TurnResult {
  status: number;
  text: string;
  /** From the request to the first piece of text, ms; NaN when none came. */
  firstTokenMs: number;
  /** Whether the stream ended with `[DONE]`. */
  done: boolean;
  /** What the refusal said (`x-confab-refused`), when it was one. */
  refusedBy: string | null;
}

export interface TurnOptions {
  conversation: string;
  /** The turn's id: a retry of the same turn sends the same. */
  turn?: string;
  /** Aborted: the connection drops, as a reloaded page's does. */
  signal?: AbortSignal;
}

export class HttpPerson {
  cookie = '';
  private readonly grants = new Map<string, string>();

  constructor(
    private readonly tally: Tally,
    readonly bot = 'demo',
  ) {}

  async call(base: string, path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.cookie !== '') headers.cookie = this.cookie;
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.signal === undefined ? {} : { signal: init.signal }),
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    this.tally.note(res.status);
    const set = res.headers.get('set-cookie');
    if (set !== null) this.cookie = set.split(';')[0] ?? '';
    return res;
  }

  /** A grant for the bot from `base` (made once per instance); the first call makes the person. */
  async grant(base: string): Promise<string> {
    const kept = this.grants.get(base);
    if (kept !== undefined) return kept;
    const res = await this.call(base, '/api/start', { body: { bot: this.bot } });
    if (res.status !== 200) throw new Error(`/api/start on ${base} answered ${String(res.status)}: ${await res.text()}`);
    const { grant } = (await res.json()) as { grant: string };
    this.grants.set(base, grant);
    return grant;
  }

  /** One turn through `base`'s door, read to its end. */
  async turn(base: string, said: string, options: TurnOptions): Promise<TurnResult> {
    const headers = {
      authorization: `Bearer ${await this.grant(base)}`,
      'x-confab-conversation': options.conversation,
      'x-confab-time-zone': 'Europe/Paris',
      'x-confab-turn': options.turn ?? randomUUID(),
    };
    const result = await streamedTurn(`${base}/v1/chat/completions`, headers, { model: 'bot', stream: true, messages: [{ role: 'user', content: said }] }, options.signal);
    this.tally.note(result.status);
    return result;
  }

  /** Makes `page` the active one, through `base`. */
  async claim(base: string, page: PageRef): Promise<Seat> {
    const res = await this.call(base, '/api/presence/active', { body: { bot: this.bot, ...page } });
    if (res.status !== 200) throw new Error(`a claim on ${base} answered ${String(res.status)}: ${await res.text()}`);
    return ((await res.json()) as { seat: Seat }).seat;
  }

  /** Publishes what `page` said, through `base`. */
  async publish(base: string, page: string, events: WindowEvent[]): Promise<void> {
    const res = await this.call(base, '/api/presence/events', { body: { bot: this.bot, page, events, live: null } });
    if (res.status !== 200) throw new Error(`publishing on ${base} answered ${String(res.status)}: ${await res.text()}`);
  }

  /** `page`'s presence stream from `base`, read as it arrives. */
  async open(base: string, page: PageRef): Promise<PageStream> {
    const controller = new AbortController();
    const query = new URLSearchParams({ bot: this.bot, page: page.page, device: page.device });
    const res = await this.call(base, `/api/presence?${query.toString()}`, { signal: controller.signal });
    if (res.status !== 200 || res.body === null) throw new Error(`the stream on ${base} answered ${String(res.status)}: ${await res.text()}`);
    return new PageStream(res.body, controller);
  }
}

/** One streamed chat completion from `url` (the door, or a provider asked directly), read to its end. */
export async function streamedTurn(url: string, headers: Record<string, string>, body: unknown, signal?: AbortSignal): Promise<TurnResult> {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
  const refusedBy = res.headers.get('x-confab-refused');
  if (res.status !== 200 || res.body === null) {
    await res.body?.cancel();
    return { status: res.status, text: '', firstTokenMs: Number.NaN, done: false, refusedBy };
  }
  let text = '';
  let firstTokenMs = Number.NaN;
  let done = false;
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buffered += decoder.decode(chunk, { stream: true }).replaceAll('\r\n', '\n');
    for (let cut = buffered.indexOf('\n\n'); cut >= 0; cut = buffered.indexOf('\n\n')) {
      const data = buffered.slice(0, cut).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      buffered = buffered.slice(cut + 2);
      if (data === '[DONE]') done = true;
      else if (data !== '') {
        const piece = (JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta?.content;
        if (typeof piece === 'string' && piece !== '') {
          if (Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - started;
          text += piece;
        }
      }
    }
  }
  return { status: res.status, text, firstTokenMs, done, refusedBy };
}

/**
 * `/api/start` from `localAddress` (another address of the loopback, so this client is an address of
 * its own to the server), with no cookie: a browser becoming a new person. Answers the status.
 */
export function arriveFrom(base: string, localAddress: string, bot: string): Promise<number> {
  const url = new URL('/api/start', base);
  const body = JSON.stringify({ bot });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => { resolve(res.statusCode ?? 0); });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A page id as the page makes one. */
export const pageRef = (): PageRef => ({ page: randomUUID().replaceAll('-', ''), device: randomUUID().replaceAll('-', '') });

/** A line the person said, as a page publishes it. */
export const lineEvent = (conversation: string, text: string, utteranceId: number): WindowEvent => ({ kind: 'line', conversation, line: { role: 'user', text, utteranceId } });

/**
 * When (on `performance.now()`) a message from the `from`-th on that `matches` reached `stream`,
 * looked at every millisecond; throws after `withinMs`.
 */
export async function untilMessage(stream: PageStream, from: number, matches: (message: PresenceMessage) => boolean, withinMs: number): Promise<number> {
  const untilMs = performance.now() + withinMs;
  for (let seen = from; ; ) {
    for (; seen < stream.messages.length; seen++) if (matches(stream.messages[seen] as PresenceMessage)) return performance.now();
    if (stream.closed) throw new Error('The presence stream closed while a message was awaited.');
    if (performance.now() > untilMs) throw new Error(`No awaited presence message within ${String(withinMs)} ms; the last ones: ${JSON.stringify(stream.messages.slice(-4))}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Whether `message` tells page `me` that another page is the active one now: a yield, its seat (in a hello too), or the window's presence event. */
export function toldOtherActive(message: PresenceMessage, me: PageRef): boolean {
  if (message.type === 'yield') return message.to.page !== me.page;
  if (message.type === 'seat' || message.type === 'hello') return message.seat.active !== null && message.seat.active.page !== me.page;
  return message.type === 'event' && message.sequenced.event.kind === 'presence' && message.sequenced.event.active !== null && message.sequenced.event.active.page !== me.page;
}

/** Whether `message` carries a line that says `text`. */
export const carriesLine = (message: PresenceMessage, text: string): boolean =>
  message.type === 'event' && message.sequenced.event.kind === 'line' && message.sequenced.event.line.text === text;
