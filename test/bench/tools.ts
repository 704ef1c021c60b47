/**
 * What acting adds to the first word, and whether a retried turn ever writes twice.
 *
 * Time to first audio is measured as time to the first answer text the door streams — what the
 * page's chunker turns into the opening piece — from `fetch` on the page's side. Two real Confab
 * servers in one process (`createBackend` + `createApp` over in-memory PGlite, `live: true`, served
 * on ephemeral ports) share one scripted OpenAI-shaped upstream on 127.0.0.1 that waits
 * `MODEL_FIRST_TOKEN_MS` before each answer's first chunk:
 *
 * - `plain`: the bot has no verbs (the registry is empty); the model answers in text at once;
 * - `verb`: the bot has the shipped `lists` app; the model first calls `lists.read`, the door runs
 *   it through the executor (a transaction as the person under RLS, validation both ways, the call
 *   recorded), asks the model again with the result, and the model answers in text.
 *
 * Rounds alternate which goes first. `addedFirstAudioMs` per round is the verb turn's first text
 * minus the plain turn's, minus the verb handler's own time (timed around `lists.read`'s `run`)
 * and minus the second model call's own `MODEL_FIRST_TOKEN_MS` — what Confab's loop itself adds:
 * scope, the tool-call parsing, the executor, the second request. Target: p50 ≤ 50 ms.
 *
 * Then `RETRIED_TURNS` turns each add a new item through `lists.add` and are sent again with the
 * same conversation and messages, as a page retries a turn; every other first attempt is cut by the
 * client (a barge-in or a reload) while its write runs. `duplicateWrites` counts writes that took
 * effect more than once: the `lists.add` effects recorded beyond one per turn.
 */
import { performance } from 'node:perf_hooks';
import { parseBotFile } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { createRegistry, loadApps } from '../../server/verbs/registry';
import type { Verb } from '../../server/verbs/verb';
import { delay, serveApp, startUpstream } from '../server/chat/localServers';
import type { Listening, Received, Reply } from '../server/chat/localServers';
import { roundMs, spread } from '../helpers/benchTimings';
import { openTestBackend } from '../helpers/testBackend';
import type { BenchResult } from './run';

const MODEL_FIRST_TOKEN_MS = 40;
const WARM_UP = 10;
const ROUNDS = 60;
const RETRIED_TURNS = 200;

const bot = (apps: string) => `---
name: Bench
memory: thread
${apps === '' ? '' : `apps: [${apps}]`}
limits: { steps: 4, spend: 10, perMinute: { answers: 100000 }, perDay: { spend: 100000 } }
---
You keep lists.`;

interface Server extends Listening {
  db: Database;
}

async function server(registryVerbs: 'none' | 'lists', upstreamUrl: string, ownMs: number[], effects: { committed: number }): Promise<Server> {
  const apps = registryVerbs === 'none' ? [] : (await loadApps()).filter((a) => a.name === 'lists');
  // The handlers timed where they run, so the executor's own work is not counted as the verb's.
  const timed = apps.map((app) => ({
    ...app,
    verbs: app.verbs.map((verb): Verb => ({
      ...verb,
      run: async (input, context) => {
        const started = performance.now();
        const output = await verb.run(input, context);
        if (verb.name === 'lists.read') ownMs.push(performance.now() - started);
        if (verb.name === 'lists.add') effects.committed += 1;
        return output;
      },
    })),
  }));
  const { db, app } = await openTestBackend({
    bots: new Map([['bench', parseBotFile('bench.md', bot(registryVerbs === 'none' ? '' : 'lists'))]]),
    providers: [{ name: 'local', baseUrl: upstreamUrl, apiKey: 'bench', model: 'bench-model' }],
    live: true,
    registry: createRegistry(timed),
  });
  const listening = await serveApp(app);
  return { ...listening, db };
}

/** The upstream: a tool call for a turn that asks a list question, text otherwise (and after results). */
async function model(reply: Reply, received: Received): Promise<void> {
  const messages = received.body.messages as { role: string; content?: string }[];
  const last = messages.at(-1);
  const tools = Array.isArray(received.body.tools) && received.body.tools.length > 0;
  await delay(MODEL_FIRST_TOKEN_MS);
  if (tools && last?.role === 'user') {
    const adding = /^add (.+)$/.exec(last.content ?? '');
    const call = adding === null ? { name: 'lists-read', arguments: '{"list":"shopping"}' } : { name: 'lists-add', arguments: JSON.stringify({ list: 'bench', items: [adding[1]] }) };
    reply.toolCalls([{ index: 0, id: 'call_1', type: 'function', function: { name: call.name, arguments: '' } }]);
    reply.toolCalls([{ index: 0, function: { arguments: call.arguments } }]);
    reply.finish('tool_calls');
  } else {
    for (const word of ['Your ', 'list ', 'is ', 'read.']) reply.token(word);
    reply.finish();
  }
  reply.done();
}

class Page {
  private cookie = '';
  constructor(private readonly url: string) {}
  async start(): Promise<string> {
    const res = await fetch(`${this.url}/api/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'bench' }) });
    this.cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    return ((await res.json()) as { grant: string }).grant;
  }
  /** Ms from the request to the first answer text; reads the rest. */
  async firstText(grant: string, question: string, conversation: string, signal?: AbortSignal, turnId?: string): Promise<number> {
    const started = performance.now();
    const res = await fetch(`${this.url}/v1/chat/completions`, {
      method: 'POST',
      // A retry carries its turn's id, as the page's does: the write keys derive from it.
      headers: { authorization: `Bearer ${grant}`, 'content-type': 'application/json', 'x-confab-conversation': conversation, cookie: this.cookie, ...(turnId === undefined ? {} : { 'x-confab-turn': turnId }) },
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: question }] }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (res.status !== 200 || res.body === null) throw new Error(`The door answered ${String(res.status)}.`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let first = Number.NaN;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      if (Number.isNaN(first) && /"content":"[^"]/.test(text)) first = performance.now() - started;
    }
    if (!text.includes('[DONE]')) throw new Error('The answer did not end.');
    return first;
  }
}

export async function run(): Promise<BenchResult> {
  const upstream = await startUpstream(model);
  const ownMs: number[] = [];
  const effects = { committed: 0 };
  const plainServer = await server('none', upstream.baseUrl, [], { committed: 0 });
  const verbServer = await server('lists', upstream.baseUrl, ownMs, effects);
  try {
    const plainPage = new Page(plainServer.url);
    const verbPage = new Page(verbServer.url);
    const plainGrant = await plainPage.start();
    const verbGrant = await verbPage.start();
    const plain: number[] = [];
    const verb: number[] = [];
    const added: number[] = [];
    for (let round = 0; round < WARM_UP + ROUNDS; round += 1) {
      const own = ownMs.length;
      const conversation = `bench-${String(round)}`;
      const one = async (which: 'plain' | 'verb') => (which === 'plain' ? plainPage.firstText(plainGrant, "what's on my shopping list", conversation) : verbPage.firstText(verbGrant, "what's on my shopping list", conversation));
      const order = round % 2 === 0 ? (['plain', 'verb'] as const) : (['verb', 'plain'] as const);
      const times: Record<string, number> = {};
      for (const which of order) times[which] = await one(which);
      if (round < WARM_UP) continue;
      const handlerMs = ownMs.slice(own).reduce((a, b) => a + b, 0);
      plain.push(times.plain ?? Number.NaN);
      verb.push(times.verb ?? Number.NaN);
      added.push((times.verb ?? 0) - (times.plain ?? 0) - handlerMs - MODEL_FIRST_TOKEN_MS);
    }

    // Retried turns: the same conversation and messages sent again; every other first try is cut mid-write.
    effects.committed = 0;
    const retryGrant = await verbPage.start();
    let cut = 0;
    for (let turn = 0; turn < RETRIED_TURNS; turn += 1) {
      const question = `add bench item ${String(turn)}`;
      const conversation = `retry-${String(turn)}`;
      const turnId = `bench-turn-${String(turn).padStart(4, '0')}-${conversation}`;
      if (turn % 2 === 0) {
        const bargeIn = new AbortController();
        const attempt = verbPage.firstText(retryGrant, question, conversation, bargeIn.signal, turnId).catch(() => {
          cut += 1;
          return Number.NaN;
        });
        await delay(MODEL_FIRST_TOKEN_MS + (turn % 7));
        bargeIn.abort();
        await attempt;
      } else {
        await verbPage.firstText(retryGrant, question, conversation, undefined, turnId);
      }
      await verbPage.firstText(retryGrant, question, conversation, undefined, turnId);
    }
    await delay(200);
    const { rows } = await verbServer.db.asServer((tx) => tx.query<{ n: number }>("select count(*)::int as n from list_items where list = 'bench'"));
    const items = rows[0]?.n ?? 0;
    const addedSpread = spread(added);
    return {
      bench: 'tools',
      rounds: ROUNDS,
      modelFirstTokenMs: MODEL_FIRST_TOKEN_MS,
      plainFirstAudioMs: spread(plain),
      verbFirstAudioMs: spread(verb),
      verbHandlerMsP50: spread(ownMs).p50,
      addedFirstAudioMsP50: roundMs(addedSpread.p50),
      addedFirstAudioMsP95: roundMs(addedSpread.p95),
      targetAddedFirstAudioMsP50: 50,
      retriedTurns: RETRIED_TURNS,
      firstAttemptsCut: cut,
      writesCommitted: effects.committed,
      itemsOnList: items,
      duplicateWrites: Math.max(0, effects.committed - RETRIED_TURNS),
    };
  } finally {
    await plainServer.close();
    await verbServer.close();
    await plainServer.db.close();
    await verbServer.db.close();
    await upstream.close();
  }
}
