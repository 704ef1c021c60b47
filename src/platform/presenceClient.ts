/**
 * The page's side of the server's presence routes: the stream (`GET /api/presence`, server-sent
 * events read over fetch, so Supabase mode's token goes with it), the claim
 * (`POST /api/presence/active`) and publishing (`POST /api/presence/events`).
 */
import { isRecord } from '../../common/isRecord';
import { isSeat, presenceMessageOf } from '../../common/presence/protocol';
import type { PageRef, PresenceMessage, Publication, Seat } from '../../common/presence/protocol';
import { failureOf, HttpError, httpClient, unreadableAnswer } from './http';
import type { Say } from './http';
import { sayWord } from './words';

/**
 * How long the stream waits before it is opened again, in ms, by failures in a row (the last
 * repeats); at once when the browser says it is back online. Each opening sends the `since` the
 * page has then, so it is owed exactly what it missed.
 */
const RECONNECT_MS = [250, 500, 1_000, 2_000, 5_000] as const;
/** A stream silent this long (the server's keep-alive comes every 15 s) is taken for dead, in ms: a laptop that slept holds a dead connection. */
const SILENT_MS = 40_000;

type StreamState = 'connecting' | 'open' | 'down';

export interface StreamOptions {
  bot: string;
  me: PageRef;
  /** The last window `seq` the page has, read at each (re)connection; null for none. */
  since: () => number | null;
  onMessage: (message: PresenceMessage) => void;
  onState?: (state: StreamState) => void;
  /** Default `SILENT_MS`. */
  silentMs?: number;
}

export interface PresenceStreamHandle {
  /** Drops the stream and opens it again now (the network is back). */
  reconnect(): void;
  close(): void;
}

export interface PresenceClient {
  open(options: StreamOptions): PresenceStreamHandle;
  /** Makes `me` the active page; the seat the server gives it. */
  claim(bot: string, me: PageRef): Promise<Seat>;
  /** Publishes events and the live state; the seqs they were given and the page's seat. */
  publish(publication: Publication): Promise<{ seqs: number[]; seat: Seat | null }>;
}

/**
 * Why the page dropped its stream, as the abort's reason: no one reads it (a run's end only opens the
 * stream again, or not once it is closed), so it is a code, never a sentence.
 */
class StreamDropped extends Error {
  override readonly name = 'StreamDropped';
  constructor(readonly why: 'silent' | 'offline' | 'reconnecting' | 'closed') {
    super(why);
  }
}

/** How this client says what went wrong; only a claim's answer is checked for its shape. */
const say: Say = (what, trouble) => {
  switch (trouble.kind) {
    case 'unreachable':
      return sayWord('page-server.unreachable-plain', { what });
    case 'answered':
      return sayWord('page-server.refused-plain', { what, status: trouble.status });
    case 'not-json':
    case 'misshapen':
      return unreadableAnswer(what, trouble.kind);
  }
};

export function presenceClient(fetcher?: typeof fetch): PresenceClient {
  const http = httpClient(say, fetcher);

  return {
    open(options) {
      const silentMs = options.silentMs ?? SILENT_MS;
      let closed = false;
      let failures = 0;
      let current: AbortController | null = null;
      let retry: ReturnType<typeof setTimeout> | undefined;
      let watchdog: ReturnType<typeof setTimeout> | undefined;

      const heard = (controller: AbortController) => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          controller.abort(new StreamDropped('silent'));
        }, silentMs);
      };

      async function run(controller: AbortController): Promise<void> {
        options.onState?.('connecting');
        const since = options.since();
        const query = new URLSearchParams({ bot: options.bot, page: options.me.page, device: options.me.device, ...(since === null ? {} : { since: String(since) }) });
        const response = await http.send(sayWord('page-server.follow-pages'), `/api/presence?${query.toString()}`, { accept: 'text/event-stream', signal: controller.signal });
        if (!response.ok || response.body === null) throw new HttpError(sayWord('page-server.refused-plain', { what: sayWord('page-server.follow-pages'), status: response.status }), { failure: failureOf(response.status), status: response.status });
        heard(controller);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = '';
        let opened = false;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            heard(controller);
            buffered += value;
            const blocks = buffered.split(/\r?\n\r?\n/);
            buffered = blocks.pop() ?? '';
            for (const block of blocks) {
              const lines = block.split(/\r?\n/);
              const name = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
              const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
              if (name === undefined || data === '') continue;
              let parsed: unknown;
              try {
                parsed = JSON.parse(data);
              } catch {
                continue;
              }
              const message = presenceMessageOf(name, parsed);
              if (message === undefined) continue;
              if (!opened && message.type === 'hello') {
                opened = true;
                failures = 0;
                options.onState?.('open');
              }
              options.onMessage(message);
            }
          }
        } finally {
          await reader.cancel().catch(() => undefined);
        }
      }

      function connect(): void {
        if (closed) return;
        const controller = new AbortController();
        current = controller;
        run(controller)
          .catch(() => undefined)
          .finally(() => {
            clearTimeout(watchdog);
            if (closed || current !== controller) return;
            current = null;
            options.onState?.('down');
            const waitMs = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)] ?? 5_000;
            failures += 1;
            retry = setTimeout(connect, waitMs);
          });
      }

      const back = () => {
        handle.reconnect();
      };
      const gone = () => {
        current?.abort(new StreamDropped('offline'));
      };
      // The browser's word that the network went or came back (none where there is no window).
      const network = 'addEventListener' in globalThis ? globalThis : null;
      network?.addEventListener('online', back);
      network?.addEventListener('offline', gone);

      const handle: PresenceStreamHandle = {
        reconnect() {
          if (closed) return;
          clearTimeout(retry);
          const old = current;
          current = null;
          old?.abort(new StreamDropped('reconnecting'));
          failures = 0;
          connect();
        },
        close() {
          closed = true;
          clearTimeout(retry);
          clearTimeout(watchdog);
          current?.abort(new StreamDropped('closed'));
          current = null;
          network?.removeEventListener('online', back);
          network?.removeEventListener('offline', gone);
        },
      };
      connect();
      return handle;
    },
    async claim(bot, me) {
      const body = await http.json(sayWord('page-server.claim-page'), '/api/presence/active', { body: { bot, ...me } }, hasSeat);
      return body.seat;
    },
    async publish(publication) {
      const body = (await http.json(sayWord('page-server.publish'), '/api/presence/events', { body: publication })) as { seqs?: unknown; seat?: unknown } | null;
      const seqs = Array.isArray(body?.seqs) ? (body.seqs as unknown[]).filter((n): n is number => typeof n === 'number') : [];
      return { seqs, seat: isSeat(body?.seat) ? body.seat : null };
    },
  };
}

function hasSeat(value: unknown): value is { seat: Seat } {
  return isRecord(value) && isSeat(value.seat);
}
