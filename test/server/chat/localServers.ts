/**
 * Real HTTP servers on 127.0.0.1 for the door, proxy and model-download tests: a scripted OpenAI-shaped provider
 * that records what it was sent and whether its request was closed before it finished, and a
 * Hono app served the way `server/index.ts` serves one.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  settled: () => boolean;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let done = false;
  const promise = new Promise<T>((r) => {
    resolve = (value) => {
      done = true;
      r(value);
    };
  });
  return { promise, resolve, settled: () => done };
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Listening {
  url: string;
  close: () => Promise<void>;
}

async function listening(server: Server): Promise<Listening> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export function listen(handler: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  return listening(server);
}

/** `app` on a real port, as `@hono/node-server` serves it in production. */
export function serveApp(app: Hono): Promise<Listening> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  return listening(server);
}

/** A URL nothing listens on. */
export async function unreachableUrl(): Promise<string> {
  const server = await listen(() => undefined);
  await server.close();
  return server.url;
}

/** A request's body as it arrived, and how its reply ended. */
export interface Arrival {
  text: string;
  /** Resolves with true when the caller closed the request before the reply ended, false when it ended normally. */
  closed: Promise<boolean>;
  /** Whether the reply has been ended. */
  ended: () => boolean;
}

/** Reads `req`'s body and calls `arrived` with it once all of it is in, watching from then how `res` ends. */
export function whenArrived(req: IncomingMessage, res: ServerResponse, arrived: (arrival: Arrival) => void): void {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    let ended = false;
    const closed = new Promise<boolean>((resolve) => {
      res.on('finish', () => {
        ended = true;
        resolve(false);
      });
      res.on('close', () => {
        resolve(!ended);
      });
    });
    arrived({ text: Buffer.concat(parts).toString('utf8'), closed, ended: () => ended });
  });
}

/** One request a scripted provider received. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Resolves with true when the caller closed the request before the reply ended, false when it ended normally. */
  closed: Promise<boolean>;
  /** Whether the reply has been ended by the script. */
  ended: () => boolean;
}

/** What a script writes: OpenAI's streaming format, or an error status. */
export class Reply {
  private opened = false;
  constructor(
    readonly res: ServerResponse,
    private readonly model: string,
  ) {}

  /** An HTTP error with OpenAI's error body. */
  fail(status: number, code: string | null = null, message = 'It went wrong.'): void {
    this.res.writeHead(status, { 'content-type': 'application/json' });
    this.res.end(JSON.stringify({ error: { message, type: 'error', code } }));
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    this.event({ role: 'assistant', content: '' }, null);
  }

  token(text: string): void {
    this.open();
    this.event({ content: text }, null);
  }

  finish(reason = 'stop'): void {
    this.open();
    this.event({}, reason);
  }

  /** Pieces of tool calls, in one chunk, as `choices[0].delta.tool_calls` (each piece as given: quirks included). */
  toolCalls(pieces: readonly Record<string, unknown>[]): void {
    this.open();
    this.event({ tool_calls: pieces }, null);
  }

  usage(promptTokens: number, completionTokens: number): void {
    this.open();
    this.raw(`data: ${JSON.stringify({ id: 'up-1', object: 'chat.completion.chunk', created: 1, model: this.model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`);
  }

  done(): void {
    this.open();
    this.raw('data: [DONE]\n\n');
    this.res.end();
  }

  raw(text: string): void {
    this.res.write(text);
  }

  /** Drops the connection mid-reply. */
  destroy(): void {
    this.res.socket?.destroy();
  }

  private event(delta: Record<string, unknown>, finish: string | null): void {
    this.raw(`data: ${JSON.stringify({ id: 'up-1', object: 'chat.completion.chunk', created: 1, model: this.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  }
}

export type Script = (reply: Reply, received: Received) => void | Promise<void>;

export interface Upstream extends Listening {
  /** `<url>/v1`, as a provider's base URL. */
  baseUrl: string;
  received: Received[];
  /** Resolves with each request as it arrives. */
  next: () => Promise<Received>;
}

/** A scripted OpenAI-shaped provider. `script` runs once per request. */
export async function startUpstream(script: Script): Promise<Upstream> {
  const received: Received[] = [];
  const waiters: Deferred<Received>[] = [];
  let taken = 0;
  const server = await listen((req, res) => {
    whenArrived(req, res, ({ text, closed, ended }) => {
      const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      const one: Received = { path: req.url ?? '', headers: req.headers, body, closed, ended };
      received.push(one);
      const waiter = waiters.shift();
      if (waiter !== undefined) {
        taken += 1;
        waiter.resolve(one);
      }
      void Promise.resolve(script(new Reply(res, typeof body.model === 'string' ? body.model : 'unknown'), one)).catch(() => {
        res.destroy();
      });
    });
  });
  return {
    ...server,
    baseUrl: `${server.url}/v1`,
    received,
    next: () => {
      const ready = received[taken];
      if (ready !== undefined) {
        taken += 1;
        return Promise.resolve(ready);
      }
      const waiter = deferred<Received>();
      waiters.push(waiter);
      return waiter.promise;
    },
  };
}

/** A script that answers `words` a token each, `gapMs` apart, then usage (when given) and `[DONE]`. */
export function answering(words: readonly string[], options: { gapMs?: number; usage?: [number, number] } = {}): Script {
  return async (reply) => {
    reply.open();
    for (const word of words) {
      reply.token(word);
      if (options.gapMs !== undefined) await delay(options.gapMs);
    }
    reply.finish();
    if (options.usage !== undefined) reply.usage(...options.usage);
    reply.done();
  };
}

/** A script that opens with `first`, then sends `word` every 10 ms until its caller hangs up. */
export function talkingUntilClosed(word: string, first = word): Script {
  return async (reply, received) => {
    const caller = { gone: false };
    void received.closed.then(() => {
      caller.gone = true;
    });
    reply.token(first);
    while (!caller.gone) {
      await delay(10);
      reply.token(word);
    }
  };
}
