/**
 * The one gate, kind by kind: every kind in `EFFECT_KINDS` is driven down its real path through the
 * whole API (the door, a run's worker, the paid voice, an outside app's call through the executor, a
 * schedule's clock), once refused and once admitted. Refused, the effect does not happen (no model,
 * no endpoint, no outside server is asked; no run starts); admitted, it writes its ledger row.
 * `DRIVES` is keyed by the kinds, so a kind added to the list without a way through the gate does
 * not compile, and the loop runs every kind there is.
 *
 * Then the background share (work nobody is waiting for stops at its share of the site's windows; a
 * person asking is still answered), and the paid voice sold only for bots whose voice is the endpoint.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBotFile } from '../../server/bots';
import type { Bot } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { SITE_BOT, SITE_PERSON } from '../../server/db/reservations';
import { recordUsage } from '../../server/db/usage';
import { BACKGROUND_PERSON, EFFECT_KINDS } from '../../server/gate';
import type { EffectKind } from '../../server/gate';
import { verifyGrant } from '../../server/grants';
import { parseAppFile } from '../../server/outside/appFile';
import { outsideVerb } from '../../server/outside/outsideVerb';
import { insertSchedule } from '../../server/runs/schedules';
import { startRun } from '../../server/runs/runsApi';
import lists from '../../server/apps/lists/index';
import { createRegistry } from '../../server/verbs/registry';
import type { App } from '../../server/verbs/verb';
import { testBackend } from '../helpers/testBackend';
import type { TestBackend, TestBackendOptions } from '../helpers/testBackend';
import { answering, startUpstream } from './chat/localServers';
import type { Upstream } from './chat/localServers';
import { OPENING_MS, openMemoryDatabase } from './db/fixtures';
import { Person } from './presence/presenceClient';
import { ended } from './runs/runFixtures';

/** A bot that speaks with the paid voice, uses the pet shop, and may spend 5 cents a day per person. */
const GATED = parseBotFile(
  'gated.md',
  `---\nname: Gated\nmemory: thread\nvoice: { by: endpoint, language: en }\napps: [lists, petshop, petsmall]\nlimits: { steps: 4, spend: 0.01, perMinute: { answers: 1000 }, perDay: { spend: 0.05 } }\n---\nYou help.`,
);
/** The same, speaking with the device's own voice. */
const DEVICE = parseBotFile('device.md', `---\nname: Device\nvoice: { by: browser, language: en }\nlimits: { steps: 4, spend: 0.01, perDay: { spend: 0.05 } }\n---\nYou talk.`);
const BOTS = new Map<string, Bot>([
  ['gated', GATED],
  ['device', DEVICE],
]);

/** An outside app with no credential that takes one call a day over everybody. */
function outsideApp(name: string, frontMatter: string, calls: unknown[]): App {
  const file = parseAppFile(`${name}.md`, `---\nopenapi:\n  spec: ${name}.json\n  server: https://${name}.example\noperations: [getPetById]\n${frontMatter}\n---\nFinds pets.`);
  const tool = {
    tool: 'getPetById',
    description: 'Finds a pet by its id.',
    inputSchema: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
    risk: 'read' as const,
    call: (input: Record<string, unknown>) => {
      calls.push(input);
      return Promise.resolve({ name: 'Rex' });
    },
  };
  return { name, description: 'Finds pets.', verbs: [outsideVerb(file, tool)] };
}
const smallCalls: unknown[] = [];
const PETSMALL = outsideApp('petsmall', 'limits: { perDay: { calls: 1 } }', smallCalls);

/** An OpenAPI app called with the site's key (`env:PETS_KEY`), priced and with windows of its own; `calls` is what reached it. */
const petCalls: unknown[] = [];
const PET_FILE = parseAppFile(
  'petshop.md',
  `---\nopenapi:\n  spec: petshop.json\n  server: https://pets.example\n  auth: { header: api_key, value: env:PETS_KEY }\noperations: [getPetById]\nexamples: { getPetById: 'look up pet {petId}' }\nlimits: { perDay: { calls: 1000 } }\npricePerCallUsd: 0.001\n---\nFinds pets.`,
);
const PETSHOP: App = {
  name: 'petshop',
  description: 'Finds pets.',
  verbs: [
    outsideVerb(PET_FILE, {
      tool: 'getPetById',
      description: 'Finds a pet by its id.',
      inputSchema: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
      risk: 'read',
      call: (input) => {
        petCalls.push(input);
        return Promise.resolve({ name: 'Rex' });
      },
    }),
  ],
};

/** A voice endpoint: audio for every sentence, each request counted. */
const spoken: string[] = [];
const voiceFetch = ((input: string | URL | Request, init?: RequestInit) => {
  const url = input instanceof Request ? input.url : String(input);
  if (!url.includes('/audio/speech')) return fetch(input, init);
  spoken.push(url);
  return Promise.resolve(new Response(new Uint8Array([1, 2, 3, 4]), { status: 200, headers: { 'content-type': 'audio/pcm' } }));
}) as typeof fetch;

let db: Database;
let upstream: Upstream;
/** One secret for every backend here, so a grant from one is good at another over the same database. */
const GRANT_SECRET = randomBytes(32);

/** What a streamed answer said: its content, whatever else it carried (usage, a verb's event). */
async function answerTextOf(res: Response): Promise<string> {
  let answer = '';
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] };
    answer += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return answer;
}

beforeAll(async () => {
  db = await openMemoryDatabase();
  upstream = await startUpstream(answering(['Noted.'], { usage: [10, 2] }));
}, OPENING_MS);

afterAll(async () => {
  await upstream.close();
  await db.close();
});

/** A whole API over the shared database: the gated bots, the pet shop, a paid voice, a provider when `live`. */
function backend(options: { live: boolean } & TestBackendOptions): TestBackend {
  return testBackend(db, {
    bots: BOTS,
    registry: createRegistry([lists, PETSHOP, PETSMALL]),
    providers: [{ name: 'scripted', baseUrl: upstream.baseUrl, model: 'm', apiKey: 'test-key' }],
    prices: { m: { promptUsdPerMillion: 1, completionUsdPerMillion: 1 } },
    speech: { url: 'https://voice.example/v1', key: 'tts-key', voices: ['alloy'] },
    fetch: voiceFetch,
    siteLimits: { perDay: { spend: 20 } },
    runs: { scriptedStepMs: 0, pollMs: 20 },
    grantSecret: GRANT_SECRET,
    ...options,
  });
}

/** A new person with a grant for `bot`, and their id. */
async function newPerson(api: TestBackend, bot = 'gated'): Promise<{ person: Person; grant: string; id: string }> {
  const person = new Person(api.app);
  const grant = await person.start(bot);
  return { person, grant, id: verifyGrant(api.grantSecret, grant, { nowMs: Date.now() }).person };
}

/** The usage rows written for `owner` (a person, `*site`, `*background`) by `provider` (any when unset). */
async function rows(owner: string, provider?: string): Promise<number> {
  const { rows: found } = await db.asServer((tx) =>
    tx.query<{ n: number }>('select count(*)::int as n from usage where person = $1 and ($2::text is null or provider = $2)', [owner, provider ?? null]),
  );
  return found[0]?.n ?? 0;
}

/** Spends the person's whole day with the gated bot, as answers they already had would have. */
async function fillDay(id: string): Promise<void> {
  await db.asServer((tx) => recordUsage(tx, { person: id, bot: 'gated', provider: 'earlier', model: 'm', promptTokens: 0, completionTokens: 0, costUsd: 0.05, startedAt: new Date() }));
}

/** What the server does after an answer (settling it) lands a moment after the answer is sent. */
const AFTER_ANSWER = { timeout: 10_000 };

function chat(person: Person, grant: string, text: string): Promise<Response> {
  return person.call('/v1/chat/completions', { body: { stream: true, messages: [{ role: 'user', content: text }] }, headers: { authorization: `Bearer ${grant}` } });
}

/** Runs a run of `id`'s to its end through the backend's own worker (its model steps go through the gate). */
async function runToEnd(api: TestBackend, id: string, asked: string, scripted: boolean) {
  const runId = await startRun(db, { person: id, bot: 'gated', conversationKey: `conv-${id}`, asked, scripted, verbs: lists.verbs, maxSteps: 8, maxSpendUsd: 0.05, maxMinutes: 5 }, Date.now());
  if (runId === undefined) throw new Error('No run was started.');
  await api.api.runs.worker.poke();
  const run = await ended(db, runId);
  await api.api.runs.stop();
  return run;
}

/** A schedule of `id`'s, due a second ago. */
async function dueSchedule(id: string): Promise<void> {
  await db.asServer((tx) =>
    insertSchedule(tx, { person: id, bot: 'gated', conversationKey: `sched-${id}`, asked: "what's on my shopping list", said: 'every day', recurrence: { every: 'day', zone: 'UTC' }, nextAtMs: Date.now() - 1_000 }, Date.now() - 60_000),
  );
}

async function runsOf(id: string): Promise<number> {
  const { rows: found } = await db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from runs where person = $1', [id]));
  return found[0]?.n ?? 0;
}

/** Each kind's real path: once the gate refuses (not live, or the person's day spent), once it admits. */
const DRIVES: Record<EffectKind, { refused: () => Promise<void>; admitted: () => Promise<void> }> = {
  turn: {
    async refused() {
      const api = backend({ live: true });
      const { person, grant, id } = await newPerson(api);
      await fillDay(id);
      const asked = upstream.received.length;
      const res = await chat(person, grant, 'Hello?');
      expect(res.headers.get('x-confab-refused')).toBe('person');
      expect(await answerTextOf(res)).toMatch(/all this bot may spend in a day/);
      expect(upstream.received.length).toBe(asked);
      expect(await rows(id)).toBe(1);
    },
    async admitted() {
      const api = backend({ live: true });
      const { person, grant, id } = await newPerson(api);
      const res = await chat(person, grant, 'Hello?');
      expect(res.headers.get('x-confab-refused')).toBeNull();
      expect(await answerTextOf(res)).toBe('Noted.');
      // Settled once the answer has been sent.
      await expect.poll(() => rows(id, 'scripted'), AFTER_ANSWER).toBe(1);
    },
  },
  runStep: {
    async refused() {
      const api = backend({ live: true });
      const { id } = await newPerson(api);
      await fillDay(id);
      const asked = upstream.received.length;
      const run = await runToEnd(api, id, 'tidy my lists', false);
      expect(run).toMatchObject({ state: 'out_of_budget' });
      expect(run.answer).toMatch(/all this bot may spend in a day/);
      expect(upstream.received.length).toBe(asked);
    },
    async admitted() {
      const api = backend({ live: true });
      const { id } = await newPerson(api);
      const run = await runToEnd(api, id, 'tidy my lists', false);
      expect(run).toMatchObject({ state: 'finished', answer: 'Noted.' });
      expect(await rows(id, 'scripted')).toBe(1);
      // Nobody waited for it: it counted in the background share too.
      expect(await rows(BACKGROUND_PERSON, 'scripted')).toBeGreaterThanOrEqual(1);
    },
  },
  paidSentence: {
    async refused() {
      const api = backend({ live: false });
      const { person, grant, id } = await newPerson(api);
      const before = spoken.length;
      const res = await person.call('/api/speak', { body: { input: 'Hello there.', voice: 'alloy' }, headers: { authorization: `Bearer ${grant}` } });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'not-live' });
      const live = backend({ live: true });
      await fillDay(id);
      const full = await new Person(live.app).call('/api/speak', { body: { input: 'Hello there.', voice: 'alloy' }, headers: { authorization: `Bearer ${grant}` } });
      expect(full.status).toBe(429);
      expect(full.headers.get('x-confab-refused')).toBe('person');
      expect(spoken.length).toBe(before);
      expect(await rows(id, 'voice')).toBe(0);
    },
    async admitted() {
      const api = backend({ live: true });
      const { person, grant, id } = await newPerson(api);
      const res = await person.call('/api/speak', { body: { input: 'Hello there.', voice: 'alloy' }, headers: { authorization: `Bearer ${grant}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(await rows(id, 'voice')).toBe(1);
    },
  },
  outsideCall: {
    async refused() {
      // AGENTS_LIVE unset: the stand-in hears "look up pet 7", and the app is not called with the site's key.
      const api = backend({ live: false });
      const { person, grant, id } = await newPerson(api);
      const before = petCalls.length;
      const res = await chat(person, grant, 'look up pet 7');
      expect(await answerTextOf(res)).toContain("I can't use petshop yet");
      const full = backend({ live: true });
      await fillDay(id);
      const outcome = await full.api.executor.execute({ verb: 'petshop.get_pet_by_id', input: { petId: 7 }, caller: { person: id, bot: 'gated', via: 'model', timeZone: 'UTC' } });
      expect(!outcome.ok && outcome.error.sentence).toMatch(/all this bot may spend in a day/);
      expect(petCalls.length).toBe(before);
      expect(await rows(id, 'app:petshop')).toBe(0);
    },
    async admitted() {
      const api = backend({ live: true });
      const { id } = await newPerson(api);
      const before = petCalls.length;
      const outcome = await api.api.executor.execute({ verb: 'petshop.get_pet_by_id', input: { petId: 7 }, caller: { person: id, bot: 'gated', via: 'model', timeZone: 'UTC' } });
      expect(outcome.ok).toBe(true);
      expect(petCalls.length).toBe(before + 1);
      expect(await rows(id, 'app:petshop')).toBe(1);
      // The app's own windows count every call, whoever made it.
      expect(await rows('*app', 'app:petshop')).toBeGreaterThanOrEqual(1);
    },
  },
  scheduleFiring: {
    async refused() {
      const api = backend({ live: false });
      const { id } = await newPerson(api);
      await fillDay(id);
      await dueSchedule(id);
      await api.api.runs.lookAtSchedules();
      await api.api.runs.stop();
      expect(await runsOf(id)).toBe(0);
      expect(await rows(id, 'schedule')).toBe(0);
    },
    async admitted() {
      const api = backend({ live: false });
      const { id } = await newPerson(api);
      await dueSchedule(id);
      await api.api.runs.lookAtSchedules();
      await api.api.runs.stop();
      expect(await runsOf(id)).toBe(1);
      expect(await rows(id, 'schedule')).toBe(1);
    },
  },
};

describe('the one gate', { timeout: 60_000 }, () => {
  for (const kind of EFFECT_KINDS) {
    it(`refuses a ${kind} it does not admit, and nothing happens`, () => DRIVES[kind].refused());
    it(`writes a ledger row for a ${kind} it admits`, () => DRIVES[kind].admitted());
  }

  it('keeps background work to its share of the site’s windows, and still answers a person asking now', async () => {
    const api = backend({ live: true, siteLimits: { perDay: { spend: 1 } }, backgroundShare: 0.5 });
    const { person, grant, id } = await newPerson(api);
    // Background work has spent its half of the site's day.
    await db.asServer(async (tx) => {
      for (const owner of [BACKGROUND_PERSON, SITE_PERSON]) {
        await recordUsage(tx, { person: owner, bot: owner === SITE_PERSON ? SITE_BOT : '*', provider: 'earlier', model: 'm', promptTokens: 0, completionTokens: 0, costUsd: 0.5, startedAt: new Date() });
      }
    });
    const run = await runToEnd(api, id, 'tidy my lists', false);
    expect(run).toMatchObject({ state: 'out_of_budget' });
    expect(run.answer).toMatch(/work nobody is waiting for has used its share/);
    const res = await chat(person, grant, 'Hello?');
    expect(res.headers.get('x-confab-refused')).toBeNull();
    expect(await answerTextOf(res)).toBe('Noted.');
  });

  it('holds an outside app to its own calls per window over everybody, and records each call at its price', async () => {
    const api = backend({ live: false });
    const call = async (id: string) => api.api.executor.execute({ verb: 'petsmall.get_pet_by_id', input: { petId: 7 }, caller: { person: id, bot: 'gated', via: 'model', timeZone: 'UTC' } });
    const first = await newPerson(api);
    const second = await newPerson(api);
    // No credential: called without AGENTS_LIVE.
    expect((await call(first.id)).ok).toBe(true);
    const refused = await call(second.id);
    expect(!refused.ok && refused.error.sentence).toMatch(/^petsmall has been asked as often as it may be in a day \(1\); ask again in/);
    expect(smallCalls).toHaveLength(1);
    const live = backend({ live: true });
    const { id } = await newPerson(live);
    await live.api.executor.execute({ verb: 'petshop.get_pet_by_id', input: { petId: 7 }, caller: { person: id, bot: 'gated', via: 'model', timeZone: 'UTC' } });
    const { rows: costs } = await db.asServer((tx) => tx.query<{ cost: string }>("select cost::text as cost from usage where person = $1 and provider = 'app:petshop'", [id]));
    expect(costs.map((row) => Number(row.cost))).toEqual([0.001]);
  });

  it('refuses an app file whose limits are not calls per window, or whose price is not dollars, naming the field', () => {
    expect(() => outsideApp('badlimits', 'limits: { perDay: { answers: 3 } }', [])).toThrow(/badlimits\.md: limits\.perDay must be \{ calls: N \}/);
    expect(() => outsideApp('badwindow', 'limits: { perFortnight: { calls: 3 } }', [])).toThrow(/limits\.perFortnight is not a window/);
    expect(() => outsideApp('badprice', 'pricePerCallUsd: -1', [])).toThrow(/pricePerCallUsd is -1; give what one call costs in US dollars/);
  });

  it('sells the paid voice only for a bot whose voice is the endpoint', async () => {
    const api = backend({ live: true });
    const { person, grant } = await newPerson(api, 'device');
    const before = spoken.length;
    const res = await person.call('/api/speak', { body: { input: 'Hello there.', voice: 'alloy' }, headers: { authorization: `Bearer ${grant}` } });
    expect(res.status).toBe(403);
    const said = (await res.json()) as { error: string; message: string };
    expect(said.error).toBe('not-endpoint-voice');
    expect(said.message).toMatch(/device’s own voice/);
    expect(spoken.length).toBe(before);
  });
});
