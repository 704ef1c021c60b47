/**
 * The chat door on a real port with fakes for what others own: grants (`Bearer grant-ok`), one
 * bot, a ledger that records reservations and settlements, and a log that keeps its lines. The
 * caller is the official `openai` client, as a voice worker would hold it.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import OpenAI from 'openai';
import { afterEach } from 'vitest';
import { chatDoor } from '../../../server/chat/chatDoor';
import type { AnswerSpend, AnsweredTurn, DoorDeps, DoorLogLine, DoorTurn, Reservation } from '../../../server/chat/doorTypes';
import type { ChatMessage } from '../../../server/chat/chatRequest';
import type { PriceTable } from '../../../server/chat/prices';
import type { Provider } from '../../../server/chat/upstream';
import { deferred, serveApp } from './localServers';
import type { Deferred, Listening } from './localServers';

export const GRANT = 'grant-ok';
export const BOT_PROMPT = 'You are Sage, a calm companion. Answer in two short sentences.';

export interface TestGrant {
  bot: string;
  person: string;
  limits: { spend?: number; minutes?: number; steps?: number };
  expiresAt: number;
}

export interface TestBot {
  slug: string;
  prompt: string;
  memory: 'none' | 'thread' | 'person' | 'person+recall';
  provider?: string;
  model?: string;
}

export interface DoorSetup {
  providers?: Provider[];
  live?: boolean;
  prices?: PriceTable;
  limits?: TestGrant['limits'];
  bot?: Partial<TestBot>;
  /** The ledger refuses every turn with this sentence, as the person's windows (or `refusedBy`'s). */
  refuse?: string;
  refusedBy?: 'person' | 'site';
  /** Each reservation is made only when this resolves. */
  reservedWhen?: Promise<void>;
  /** Most tokens one call may answer with. */
  answerTokens?: number;
  context?: DoorDeps<TestGrant, TestBot>['context'];
  firstTokenMs?: number;
  upstreamIdleMs?: number;
  standInWordMs?: number;
  sleep?: DoorDeps<TestGrant, TestBot>['sleep'];
}

interface FakeLedger {
  reserved: { person: string; nowMs: number }[];
  settled: { reservation: string; spend: AnswerSpend }[];
  /** Resolves with the next reservation asked for, as it is asked (before `reservedWhen`). */
  nextReserve: () => Promise<{ person: string; nowMs: number }>;
  /** Resolves with the next settlement. */
  nextSettle: () => Promise<AnswerSpend>;
}

export interface RunningDoor {
  url: string;
  client: OpenAI;
  ledger: FakeLedger;
  logs: DoorLogLine[];
  answered: AnsweredTurn<TestGrant, TestBot>[];
  /** Resolves with the next `afterAnswer` turn. */
  nextAnswered: () => Promise<AnsweredTurn<TestGrant, TestBot>>;
  close: () => Promise<void>;
}

/** A queue of values, each taken once, in order. */
function queue<T>() {
  const values: T[] = [];
  const waiters: Deferred<T>[] = [];
  let taken = 0;
  return {
    push(value: T) {
      values.push(value);
      const waiter = waiters.shift();
      if (waiter !== undefined) {
        taken += 1;
        waiter.resolve(value);
      }
    },
    next(): Promise<T> {
      if (taken < values.length) return Promise.resolve(values[taken++] as T);
      const waiter = deferred<T>();
      waiters.push(waiter);
      return waiter.promise;
    },
  };
}

export function provider(name: string, baseUrl: string, model = `${name}-model`): Provider {
  return { name, baseUrl, apiKey: `sk-${name}-secret-key`, model };
}

export async function startDoor(setup: DoorSetup = {}): Promise<RunningDoor> {
  const bot: TestBot = { slug: 'sage', prompt: BOT_PROMPT, memory: 'thread', ...setup.bot };
  const settlements = queue<AnswerSpend>();
  const asked = queue<{ person: string; nowMs: number }>();
  const answers = queue<AnsweredTurn<TestGrant, TestBot>>();
  const ledger: FakeLedger = { reserved: [], settled: [], nextReserve: () => asked.next(), nextSettle: () => settlements.next() };
  const logs: DoorLogLine[] = [];
  const answered: AnsweredTurn<TestGrant, TestBot>[] = [];
  let reservations = 0;

  const deps: DoorDeps<TestGrant, TestBot> = {
    authorize: (c) => {
      if (c.req.header('authorization') !== `Bearer ${GRANT}`) throw new HTTPException(401, { message: "This conversation's grant is not valid; start again." });
      return Promise.resolve({ bot: 'sage', person: 'person-1', limits: setup.limits ?? {}, expiresAt: Date.now() + 60_000 });
    },
    botOf: (slug) => (slug === bot.slug ? bot : undefined),
    providers: setup.providers ?? [],
    live: setup.live ?? true,
    prices: setup.prices ?? {},
    ledger: {
      reserve: async ({ grant, nowMs }): Promise<Reservation> => {
        ledger.reserved.push({ person: grant.person, nowMs });
        asked.push({ person: grant.person, nowMs });
        await setup.reservedWhen;
        if (setup.refuse !== undefined) return { ok: false, sentence: setup.refuse, by: setup.refusedBy ?? 'person' };
        reservations += 1;
        return { ok: true, reservation: `r${reservations}` };
      },
      settle: (reservation, spend) => {
        ledger.settled.push({ reservation, spend });
        settlements.push(spend);
        return Promise.resolve();
      },
    },
    afterAnswer: (turn) => {
      answered.push(turn);
      answers.push(turn);
      return Promise.resolve();
    },
    clock: () => Date.now(),
    log: (line) => logs.push(line),
    standInWordMs: setup.standInWordMs ?? 1,
    ...(setup.context === undefined ? {} : { context: setup.context }),
    ...(setup.firstTokenMs === undefined ? {} : { firstTokenMs: setup.firstTokenMs }),
    ...(setup.upstreamIdleMs === undefined ? {} : { upstreamIdleMs: setup.upstreamIdleMs }),
    ...(setup.sleep === undefined ? {} : { sleep: setup.sleep }),
    ...(setup.answerTokens === undefined ? {} : { answerTokens: setup.answerTokens }),
  };
  const app = new Hono();
  app.route('/v1', chatDoor(deps));
  const server = await serveApp(app);
  return {
    url: server.url,
    client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: GRANT, maxRetries: 0 }),
    ledger,
    logs,
    answered,
    nextAnswered: () => answers.next(),
    close: server.close,
  };
}

/** A context that adds a recalled line, as `person+recall` memory would. */
export const recalling = (line: string) => (turn: DoorTurn<TestGrant, TestBot>): Promise<ChatMessage[]> =>
  Promise.resolve([{ role: 'system', content: `Recalled: ${line}` }, ...turn.messages]);

/** Server-sent events of a raw response: each event's data, in order. */
export async function sseData(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((event) => event.trim() !== '')
    .map((event) => {
      const lines = event.split('\n');
      if (!lines.every((line) => line.startsWith('data: '))) throw new Error(`Not a data-only event: ${JSON.stringify(event)}`);
      return lines.map((line) => line.slice(6)).join('\n');
    });
}

export const ask = (content: string) => ({ model: 'gpt-4o', messages: [{ role: 'user' as const, content }] });

/**
 * Registers an `afterEach` that closes every door and upstream the test started; call it at the top
 * of a test file and wrap each server in what it returns as it starts.
 */
export function closedAfterEach(): <T extends RunningDoor | Listening>(server: T) => T {
  let running: (RunningDoor | Listening)[] = [];
  afterEach(async () => {
    await Promise.all(running.map((server) => server.close()));
    running = [];
  });
  return (server) => {
    running.push(server);
    return server;
  };
}

/** One streamed answer, read whole through the official client: its pieces, text, finish and provider. */
export async function streamed(door: RunningDoor, question: string) {
  const stream = await door.client.chat.completions.create({ ...ask(question), stream: true });
  const pieces: string[] = [];
  let finish: string | null = null;
  let provider: string | undefined;
  for await (const chunk of stream) {
    provider ??= (chunk as { provider?: string }).provider;
    const content = chunk.choices[0]?.delta.content;
    if (content) pieces.push(content);
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { pieces, text: pieces.join(''), finish, provider };
}
