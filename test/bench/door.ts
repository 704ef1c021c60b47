/**
 * What the chat door adds to the first token, and whether it holds 100 streamed turns at once.
 *
 * One local upstream on 127.0.0.1 speaking OpenAI's streaming chat-completions format, in a process
 * of its own as a provider always is (test/bench/doorUpstream.ts): each request waits `FIRST_TOKEN_MS`, then sends `WORDS` a
 * token each, `TOKEN_GAP_MS` apart, a finish chunk, usage and `[DONE]`. Over it, the real Confab
 * server: `createBackend` over an in-memory PGlite, `live: true`, one provider, a price for its model,
 * `createApp`, served by @hono/node-server on an ephemeral port — the door with its grant check,
 * database ledger (reserve before, settle after), memory context and memory writer.
 *
 * Two bots, both copies of bots/demo.md with its windows kept but their ceilings raised so the
 * benchmark's turns are admitted: `demo` as shipped (`person+recall`: every turn reads the person's
 * past questions and recalls their memories, and writes one) and `demo-thread` (`thread`: the
 * conversation alone, no memory reads or writes), which shows what memory costs. The sequential
 * persons start with `SEEDED_MEMORIES` memories each, so recall has something to search. Every
 * turn through a door names its conversation (`x-confab-conversation`) and the person's time zone
 * (`x-confab-time-zone`) as the page's turns do, so
 * the door also reads, before asking, the apps the conversation used lately (their verbs stay in
 * scope) and its checkpoint. The server has its apps, as `npm start` loads them, so the
 * demo bot's verbs go to the provider as tools. Recall reads the database on every turn, as
 * `npm start`'s server does.
 *
 * Time to first token: from `fetch` to the first SSE chunk with content, for the same upstream asked
 * directly, through a bare forwarding hop (the least any server in front adds), through each door, and
 * through the same door and app with an in-memory ledger and no memory (`doorNoDatabase`: what the
 * door's own code adds); rounds of one turn each, their order rotated per round, `ROUNDS` rounds
 * after `WARM_UP`, one turn at a time with `IDLE_BETWEEN_MS` between turns. Then `CONCURRENT`
 * streamed turns through the `demo` door at once, one person each, and as many straight to the
 * upstream for comparison.
 *
 * An error is a turn with a status other than 200, an SSE event that is not a chunk, content that is
 * not the upstream's answer, anything after `[DONE]`, or no `[DONE]`. Failures the server only logs
 * (settling, writing a memory) are counted apart. Every database transaction the server runs is
 * timed (test/helpers/benchTimings.ts): how long it queued behind others — PGlite runs one at a
 * time — and how long it ran (the memory context's two reads, outside a transaction, likewise);
 * `attribution` splits the added median into the reads on the way to the first token, the grant
 * check and the embedding (timed alone), and the rest, and says what runs while the provider thinks (the reservation of a turn the person has room for). Client
 * and server share one Node process, as a single server process would share its event loop; the
 * upstream does not, so the door's own work after a question has left (a reservation made while the
 * provider thinks) is not counted against the provider's clock, as no real provider's would be.
 * PGlite's WebAssembly runs on the server's loop too, so a transaction seldom waits in PGlite's queue: while
 * one runs nothing else does, and crowding shows as time to first token rather than as `queuedMs`.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Hono } from 'hono';
import { createApp } from '../../server/app';
import { SITE_LIMITS_DEFAULT } from '../../server/backendConfig';
import type { Bot } from '../../server/bots';
import { loadBots } from '../../server/bots';
import { chatDoor } from '../../server/chat/chatDoor';
import type { DoorLedger, DoorLogLine } from '../../server/chat/doorTypes';
import type { PriceTable } from '../../server/chat/prices';
import { readConfig } from '../../server/config';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { rememberLine } from '../../server/db/memories';
import { bearerGrant, grantClaims, signGrant, verifyGrant } from '../../server/grants';
import type { GrantClaims } from '../../server/grants';
import { hashEmbedder } from '../../server/memory/embed';
import { generous } from '../helpers/benchLimits';
import { question, remark } from '../helpers/benchRemarks';
import { byLabel, roundMs, spread, timedDatabase } from '../helpers/benchTimings';
import type { TimedTransaction } from '../helpers/benchTimings';
import { seededRandom } from '../helpers/random';
import { testBackend } from '../helpers/testBackend';
import { createRegistry, loadApps } from '../../server/verbs/registry';
import type { Random } from '../helpers/random';
import { delay, serveApp } from '../server/chat/localServers';
import { DOOR_HEADERS } from '../../src/platform/doorClient';
import { startUpstreamProcess } from './doorUpstream';

const SEED = 0x5eed_d00a;
const FIRST_TOKEN_MS = 20;
const TOKEN_GAP_MS = 1;
const WORDS = ['Sure', ',', ' here', ' is', ' a', ' short', ' answer', '.'] as const;
const ANSWER = WORDS.join('');
const WARM_UP = 20;
const ROUNDS = 250;
/**
 * Idle time after each sequential turn, so a turn's memory write (after its `[DONE]`) has landed
 * before the next turn is timed; what writes cost turns that overlap them shows in the concurrent run.
 */
const IDLE_BETWEEN_MS = 15;
const CONCURRENT = 100;
/** Persons the sequential turns rotate through, and the memories each starts with. */
const SEQUENTIAL_PERSONS = 10;
const SEEDED_MEMORIES = 100;
const MODEL = 'm';
const PRICES: PriceTable = { [MODEL]: { promptUsdPerMillion: 0.15, completionUsdPerMillion: 0.6 } };
const TARGET_ADDED_MS = 10;

interface Turn {
  /** When `fetch` was called, on `performance.now()`'s clock. */
  startedAtMs: number;
  /** From `fetch` to the first chunk with content, in ms; NaN when there was none. */
  firstTokenMs: number;
  /** From `fetch` to the end of the stream, in ms. */
  totalMs: number;
  /** What was wrong with it, if anything. */
  error?: string;
}

/** One streamed turn: its timings, and whether it was a well-formed stream of `ANSWER` ending in `[DONE]`. */
async function streamTurn(url: string, token: string, body: Record<string, unknown>, conversation?: string): Promise<Turn> {
  const started = performance.now();
  let firstTokenMs = Number.NaN;
  const fail = (error: string): Turn => ({ startedAtMs: started, firstTokenMs, totalMs: performance.now() - started, error });
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        ...(conversation === undefined ? {} : { [DOOR_HEADERS.conversationKey]: conversation, [DOOR_HEADERS.timeZone]: TIME_ZONE }),
      },
      body: JSON.stringify(body),
    });
  } catch (error) {
    return fail(`fetch failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel();
    return fail(`status ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let text = '';
  let done = false;
  let malformed: string | undefined;
  for (;;) {
    let read: ReadableStreamReadResult<string>;
    try {
      read = await reader.read();
    } catch (error) {
      return fail(`the stream broke: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { value, done: ended } = read;
    if (ended) break;
    buffer += value.replaceAll('\r\n', '\n');
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      if (done) malformed ??= 'an event after [DONE]';
      if (data === '[DONE]') {
        done = true;
        continue;
      }
      const content = chunkContent(data);
      if (content === null) malformed ??= 'an event that is not a chat.completion.chunk';
      else if (content !== '') {
        if (Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - started;
        text += content;
      }
    }
  }
  if (buffer.trim() !== '') malformed ??= 'an unterminated event';
  if (malformed !== undefined) return fail(malformed);
  if (!done) return fail('no [DONE]');
  if (text !== ANSWER) return fail('content other than the upstream answered');
  return { startedAtMs: started, firstTokenMs, totalMs: performance.now() - started };
}

/** The chunk's content ('' for none), or null when it is not a chat.completion.chunk. */
function chunkContent(data: string): string | null {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof chunk !== 'object' || chunk === null || (chunk as { object?: unknown }).object !== 'chat.completion.chunk') return null;
  const choices = (chunk as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return null;
  const delta = (choices[0] as { delta?: { content?: unknown } } | undefined)?.delta;
  return typeof delta?.content === 'string' ? delta.content : '';
}

/**
 * The key of a conversation, as the page sends it with every turn of one. Each benchmark turn is a
 * conversation of its own — one question, as its messages are — so every turn reads the same
 * things on its way, and none is long enough for a checkpoint to be kept after it.
 */
let conversations = 0;
/** The zone every door turn says the person is in, as the page says theirs. */
const TIME_ZONE = 'Europe/Paris';
const newConversation = () => `thread:bench-${(conversations += 1).toString(36)}`;

/** A person's grant for `bot`. */
const grantFor = (secret: Uint8Array, bot: Bot, person: string) => signGrant(secret, grantClaims(bot, person, 'cookie', Date.now()));

const textFor = (random: Random) => (random() < 0.5 ? question(random) : remark(random));

/** Gives each person `count` memories for `bot`, as the memory writer would have kept them. */
async function seedMemories(db: Database, random: Random, persons: readonly string[], bot: string, count: number): Promise<void> {
  for (const person of persons) {
    for (let i = 0; i < count; i++) {
      const text = remark(random);
      const embedding = await hashEmbedder.embed(text);
      await db.asServer((tx) => rememberLine(tx, { person, bot, text, embedder: hashEmbedder.name, embedding }));
    }
  }
}

type Path = 'direct' | 'hop' | 'door' | 'doorThread' | 'doorNoDatabase';
const PATHS: readonly Path[] = ['direct', 'hop', 'door', 'doorThread', 'doorNoDatabase'];

/** A ledger that admits every turn and keeps nothing: the door with no database on its way. */
const admitAll: DoorLedger<GrantClaims> = {
  reserve: () => Promise.resolve({ ok: true, reservation: 'bench' }),
  settle: () => Promise.resolve(),
};

/**
 * The least any server in front of the upstream adds: a Hono route that forwards the request body
 * with `fetch` and hands the upstream's body back as it streams, served the same way as the door.
 */
function bareHop(upstreamUrl: string): Hono {
  const app = new Hono();
  app.post('/v1/chat/completions', async (c) => {
    const upstream = await fetch(upstreamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: await c.req.text(),
      signal: c.req.raw.signal,
    });
    return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': 'text/event-stream' } });
  });
  return app;
}

export async function run(): Promise<{
  bench: 'door';
  directFirstTokenMsP50: number;
  doorFirstTokenMsP50: number;
  addedMsP50: number;
  concurrent: number;
  errors: number;
  [figure: string]: unknown;
}> {
  const random = seededRandom(SEED);
  const shipped = (await loadBots('bots')).get('demo');
  if (shipped === undefined) throw new Error('bots/demo.md is missing; the door benchmark speaks to the demo bot.');
  const limits = generous(shipped.limits);
  const recallBot: Bot = { ...shipped, limits };
  const threadBot: Bot = { ...shipped, slug: 'demo-thread', memory: 'thread', limits };
  const secret = new Uint8Array(randomBytes(32));

  const transactions: TimedTransaction[] = [];
  const inner = await openDatabase({ dataDir: 'memory://' });
  const db = timedDatabase(inner, transactions);
  const serverLog = new Map<string, number>();
  const log = (line: DoorLogLine) => serverLog.set(line.event, (serverLog.get(line.event) ?? 0) + 1);
  // One request is in flight at a time in the sequential rounds: each is timed to its arrival.
  const upstream = await startUpstreamProcess({ firstTokenMs: FIRST_TOKEN_MS, tokenGapMs: TOKEN_GAP_MS, words: WORDS });
  const { api, app } = testBackend(db, {
    config: readConfig({}),
    // The apps the server finds at start: the demo bot's verbs are offered to the model every turn.
    registry: createRegistry(await loadApps()),
    bots: new Map([
      [recallBot.slug, recallBot],
      [threadBot.slug, threadBot],
    ]),
    grantSecret: secret,
    providers: [{ name: 'local', baseUrl: upstream.baseUrl, apiKey: 'k', model: MODEL }],
    live: true,
    prices: PRICES,
    // The site's default ceiling: every turn is also reserved under the site's windows, as served.
    siteLimits: SITE_LIMITS_DEFAULT,
    log,
  });
  const server = await serveApp(app);
  const doorUrl = `${server.url}/v1/chat/completions`;
  const directUrl = `${upstream.baseUrl}/chat/completions`;
  const hop = await serveApp(bareHop(directUrl));
  const hopUrl = `${hop.url}/v1/chat/completions`;
  // The same door and app, with the ledger in memory and the conversation alone as context.
  const undatabased = chatDoor({
    authorize: (c) => bearerGrant(c, secret, { nowMs: Date.now() }),
    botOf: (slug) => (slug === threadBot.slug ? threadBot : undefined),
    providers: [{ name: 'local', baseUrl: upstream.baseUrl, apiKey: 'k', model: MODEL }],
    live: true,
    prices: PRICES,
    ledger: admitAll,
    clock: Date.now,
    log,
  });
  const bare = await serveApp(createApp({ config: readConfig({}), api: { ...api, door: undatabased } }));
  const bareDoorUrl = `${bare.url}/v1/chat/completions`;

  try {
    const persons = Array.from({ length: SEQUENTIAL_PERSONS }, (_, i) => `bench-person-${i}`);
    let started = performance.now();
    await seedMemories(inner, random, persons, recallBot.slug, SEEDED_MEMORIES);
    const seedMs = performance.now() - started;
    const grants = new Map(persons.map((p) => [p, { door: grantFor(secret, recallBot, p), doorThread: grantFor(secret, threadBot, p) }]));

    const turn = (path: Path, person: string, said: string): Promise<Turn> => {
      const messages = [{ role: 'user', content: said }];
      if (path === 'direct' || path === 'hop') {
        return streamTurn(path === 'direct' ? directUrl : hopUrl, 'k', { model: MODEL, stream: true, stream_options: { include_usage: true }, messages });
      }
      const grant = grants.get(person)?.[path === 'doorNoDatabase' ? 'doorThread' : path] ?? '';
      return streamTurn(path === 'doorNoDatabase' ? bareDoorUrl : doorUrl, grant, { model: 'ignored', stream: true, stream_options: { include_usage: true }, messages }, newConversation());
    };

    const turns: Record<Path, Turn[]> = { direct: [], hop: [], door: [], doorThread: [], doorNoDatabase: [] };
    const paired: Record<Exclude<Path, 'direct'>, number[]> = { hop: [], door: [], doorThread: [], doorNoDatabase: [] };
    // From `fetch` to the upstream having read the request: what each path spends before asking.
    const reached: Record<Path, number[]> = { direct: [], hop: [], door: [], doorThread: [], doorNoDatabase: [] };
    let measuredFrom = 0;
    for (let round = 0; round < WARM_UP + ROUNDS; round++) {
      if (round === WARM_UP) measuredFrom = transactions.length;
      const person = persons[round % persons.length] ?? 'bench-person-0';
      const said = textFor(random);
      const taken = new Map<Path, Turn>();
      for (let i = 0; i < PATHS.length; i++) {
        const path = PATHS[(round + i) % PATHS.length] ?? 'direct';
        const arrival = upstream.nextArrival();
        const t = await turn(path, person, said);
        taken.set(path, t);
        const arrivedAtMs = await arrival;
        if (round >= WARM_UP) reached[path].push(arrivedAtMs - t.startedAtMs);
        await delay(IDLE_BETWEEN_MS);
      }
      if (round < WARM_UP) continue;
      for (const [path, t] of taken) turns[path].push(t);
      const direct = taken.get('direct')?.firstTokenMs ?? Number.NaN;
      for (const path of ['hop', 'door', 'doorThread', 'doorNoDatabase'] as const) paired[path].push((taken.get(path)?.firstTokenMs ?? Number.NaN) - direct);
    }
    const sequentialTransactions = transactions.slice(measuredFrom);
    await delay(100);

    // Many turns at once: one person each, as many people talking at the same moment.
    upstream.ignoreArrivals(true);
    const crowd = Array.from({ length: CONCURRENT }, (_, i) => `bench-crowd-${i}`);
    const crowdGrants = crowd.map((p) => grantFor(secret, recallBot, p));
    const crowdSaid = crowd.map(() => textFor(random));
    const concurrentFrom = transactions.length;
    started = performance.now();
    const concurrentTurns = await Promise.all(
      crowd.map((_, i) => streamTurn(doorUrl, crowdGrants[i] ?? '', { model: 'ignored', stream: true, messages: [{ role: 'user', content: crowdSaid[i] ?? '' }] }, newConversation())),
    );
    const concurrentWallMs = performance.now() - started;
    // The memory writes run after each answer; let them land before their transactions are read.
    await delay(500);
    const concurrentTransactions = transactions.slice(concurrentFrom);
    started = performance.now();
    const concurrentDirect = await Promise.all(
      crowd.map((_, i) => streamTurn(directUrl, 'k', { model: MODEL, stream: true, messages: [{ role: 'user', content: crowdSaid[i] ?? '' }] })),
    );
    const concurrentDirectWallMs = performance.now() - started;

    // The pieces outside the database, one at a time.
    const someGrant = grants.get(persons[0] ?? '')?.door ?? '';
    const verifyMs: number[] = [];
    const embedMs: number[] = [];
    for (let i = 0; i < 1000; i++) {
      started = performance.now();
      verifyGrant(secret, someGrant, { nowMs: Date.now() });
      verifyMs.push(performance.now() - started);
      const said = textFor(random);
      started = performance.now();
      await hashEmbedder.embed(said);
      embedMs.push(performance.now() - started);
    }

    const firstToken = (path: Path) => spread(turns[path].map((t) => t.firstTokenMs).filter((ms) => !Number.isNaN(ms)));
    const direct = firstToken('direct');
    const door = firstToken('door');
    const doorThread = firstToken('doorThread');
    const bareHopFirst = firstToken('hop');
    const noDatabase = firstToken('doorNoDatabase');
    const sequentialErrors = [...turns.door, ...turns.doorThread, ...turns.doorNoDatabase].filter((t) => t.error !== undefined);
    const hopErrors = turns.hop.filter((t) => t.error !== undefined);
    const concurrentErrors = concurrentTurns.filter((t) => t.error !== undefined);
    const directErrors = [...turns.direct, ...concurrentDirect].filter((t) => t.error !== undefined);
    const serverFailures = ['settle.failed', 'after-answer.failed', 'door.failed'].reduce((sum, event) => sum + (serverLog.get(event) ?? 0), 0);
    const errorSamples = [...new Set([...sequentialErrors, ...concurrentErrors, ...directErrors, ...hopErrors].map((t) => t.error))].slice(0, 5);

    // Where the added time goes, from medians: the transactions on the way to the first token, and
    // whatever is left (the second HTTP hop, Hono, the request's validation, fetch to the upstream).
    const ran = byLabel(sequentialTransactions);
    // A transaction's share: its BEGIN (counted in `queuedMs`) and its statements through COMMIT.
    const ranP50 = (name: string) => roundMs((ran[name]?.queuedMs.p50 ?? 0) + (ran[name]?.ranMs.p50 ?? 0));
    // On the way to the first token the door reads, each in a transaction as the person, the apps the conversation
    // used lately, its checkpoint, past questions and the recall; on PGlite one after the
    // other, each waiting for those before it, so each one's share is what it ran.
    const reads = { recentApps: 'person: recent apps', checkpoint: 'person: checkpoint', pastQuestions: 'person: past questions', recall: 'person: recall' };
    const readsMs = Object.fromEntries(Object.entries(reads).map(([name, label]) => [name, roundMs(ran[label]?.ranMs.p50 ?? 0)]));
    const contextP50 = roundMs(Object.values(readsMs).reduce((sum, ms) => sum + ms, 0));
    const verifyP50 = spread(verifyMs).p50;
    const embedP50 = spread(embedMs).p50;
    const added = door.p50 - direct.p50;
    const addedThread = doorThread.p50 - direct.p50;
    const beforeUpstream = (path: Path) => roundMs(spread(reached[path]).p50 - spread(reached.direct).p50);
    const attribution = {
      /** Medians of `fetch` to the upstream having read the request, less the direct path's. */
      beforeUpstreamAddedMs: Object.fromEntries(PATHS.filter((path) => path !== 'direct').map((path) => [path, beforeUpstream(path)])),
      // Each person's first turn (all in the warm-up) is reserved before the provider is asked;
      // every later one has room, so its reservation is made while the provider thinks.
      door: {
        addedMs: roundMs(added),
        verifyGrantMs: verifyP50,
        readsMs: { ...readsMs, total: contextP50 },
        embedMs: embedP50,
        restMs: roundMs(added - verifyP50 - contextP50 - embedP50),
      },
      doorThread: {
        addedMs: roundMs(addedThread),
        verifyGrantMs: verifyP50,
        restMs: roundMs(addedThread - verifyP50),
      },
      whileProviderThinks: { reserveMs: ranP50('reserve') },
      afterFirstToken: { settleMs: ranP50('settle'), rememberMs: ranP50('remember') },
      /** What any Node server in front of the upstream adds here: compare with each `restMs`. */
      bareHopAddedMs: roundMs(bareHopFirst.p50 - direct.p50),
      /** The door's own work with no database: grant, validation, prompt, relaying the stream. */
      doorNoDatabaseAddedMs: roundMs(noDatabase.p50 - direct.p50),
    };

    return {
      bench: 'door',
      directFirstTokenMsP50: direct.p50,
      doorFirstTokenMsP50: door.p50,
      addedMsP50: roundMs(door.p50 - direct.p50),
      concurrent: CONCURRENT,
      errors: sequentialErrors.length + concurrentErrors.length,
      targetAddedMs: TARGET_ADDED_MS,
      directFirstTokenMsP95: direct.p95,
      doorFirstTokenMsP95: door.p95,
      addedMsP95: roundMs(door.p95 - direct.p95),
      pairedAddedMs: spread(paired.door),
      attribution,
      bareHop: { firstTokenMs: bareHopFirst, addedMsP50: roundMs(bareHopFirst.p50 - direct.p50), pairedAddedMs: spread(paired.hop), errors: hopErrors.length },
      doorNoDatabase: { memory: 'thread', ledger: 'in memory', firstTokenMs: noDatabase, addedMsP50: roundMs(noDatabase.p50 - direct.p50), pairedAddedMs: spread(paired.doorNoDatabase) },
      doorThread: {
        memory: 'thread',
        firstTokenMs: doorThread,
        addedMsP50: roundMs(doorThread.p50 - direct.p50),
        pairedAddedMs: spread(paired.doorThread),
      },
      sequential: {
        rounds: ROUNDS,
        warmUpRounds: WARM_UP,
        idleBetweenMs: IDLE_BETWEEN_MS,
        persons: SEQUENTIAL_PERSONS,
        seededMemoriesPerPerson: SEEDED_MEMORIES,
        seedMs: Math.round(seedMs),
        directFirstTokenMs: direct,
        doorFirstTokenMs: door,
        totalMs: Object.fromEntries(PATHS.map((path) => [path, spread(turns[path].map((t) => t.totalMs))])),
        errors: sequentialErrors.length,
        transactions: ran,
      },
      concurrentRun: {
        turns: CONCURRENT,
        errors: concurrentErrors.length,
        wallMs: Math.round(concurrentWallMs),
        doorFirstTokenMs: spread(concurrentTurns.map((t) => t.firstTokenMs).filter((ms) => !Number.isNaN(ms))),
        doorTotalMs: spread(concurrentTurns.map((t) => t.totalMs)),
        directWallMs: Math.round(concurrentDirectWallMs),
        directFirstTokenMs: spread(concurrentDirect.map((t) => t.firstTokenMs).filter((ms) => !Number.isNaN(ms))),
        transactions: byLabel(concurrentTransactions),
      },
      directErrors: directErrors.length,
      serverFailures,
      serverLog: Object.fromEntries(serverLog),
      errorSamples,
      outsideDatabase: { verifyGrantMs: spread(verifyMs), embedMs: spread(embedMs) },
      upstream: { firstTokenMs: FIRST_TOKEN_MS, tokenGapMs: TOKEN_GAP_MS, tokens: WORDS.length },
      engine: 'PGlite in memory (memory://); client and door in one Node process, the upstream in another',
      seed: SEED,
    };
  } finally {
    await server.close();
    await hop.close();
    await bare.close();
    await upstream.close();
    await delay(100);
    await db.close();
  }
}
