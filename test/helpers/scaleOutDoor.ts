/**
 * What the chat door adds to the first token over a given database, measured as `npm run bench --
 * door` measures its headline (test/bench/door.ts): one local upstream in a process of its own
 * (test/bench/doorUpstream.ts), the real server in process over `db` (createBackend + createApp,
 * `live`, the demo bot as shipped with its ceilings raised — `person+recall`, so every turn reads the
 * person's past questions and recalls their memories — its apps, the site's default ceiling), served
 * on a port of 127.0.0.1. Rounds of one turn straight to the upstream and one through the door, in
 * turn order rotated per round, one at a time, `IDLE_BETWEEN_MS` apart; the added time is the
 * door's median first token less the upstream's. So `scale-out` sets the door over pooled Postgres
 * beside the door over PGlite, in one run on one machine.
 */
import { randomBytes } from 'node:crypto';
import { SITE_LIMITS_DEFAULT } from '../../server/backendConfig';
import { loadBots } from '../../server/bots';
import type { PriceTable } from '../../server/chat/prices';
import { readConfig } from '../../server/config';
import type { Database } from '../../server/db/database';
import { rememberLine } from '../../server/db/memories';
import { grantClaims, signGrant } from '../../server/grants';
import { hashEmbedder } from '../../server/memory/embed';
import { createRegistry, loadApps } from '../../server/verbs/registry';
import { startUpstreamProcess } from '../bench/doorUpstream';
import { delay, serveApp } from '../server/chat/localServers';
import { generous } from './benchLimits';
import { question, remark } from './benchRemarks';
import { roundMs, spread } from './benchTimings';
import type { Spread } from './benchTimings';
import { seededRandom } from './random';
import { streamedTurn } from './scaleOutClient';
import type { TurnResult } from './scaleOutClient';
import { testBackend } from './testBackend';

const SEED = 0x5eed_d00b;
const WORDS = ['Sure', ',', ' here', ' is', ' a', ' short', ' answer', '.'] as const;
const MODEL = 'm';
const PRICES: PriceTable = { [MODEL]: { promptUsdPerMillion: 0.15, completionUsdPerMillion: 0.6 } };
const WARM_UP = 20;
/** Idle after each turn, so a turn's memory write (after its `[DONE]`) has landed before the next is timed. */
const IDLE_BETWEEN_MS = 15;
/** Persons the turns rotate through, and the memories each starts with, as door.ts. */
const PERSONS = 10;
const SEEDED_MEMORIES = 100;

export interface DoorAdded {
  /** The door's median first token less the upstream's, ms. */
  addedMsP50: number;
  directFirstTokenMs: Spread;
  doorFirstTokenMs: Spread;
  rounds: number;
  /** Turns that were not a whole stream of the upstream's answer. */
  errors: number;
}

/** `rounds` rounds (after a warm-up) of the upstream asked directly and through the door over `db`. */
export async function doorAddedOver(db: Database, rounds: number): Promise<DoorAdded> {
  const random = seededRandom(SEED);
  const shipped = (await loadBots('bots')).get('demo');
  if (shipped === undefined) throw new Error('bots/demo.md is missing; the door is measured with the demo bot.');
  const bot = { ...shipped, limits: generous(shipped.limits) };
  const secret = new Uint8Array(randomBytes(32));
  const upstream = await startUpstreamProcess({ firstTokenMs: 20, tokenGapMs: 1, words: WORDS });
  upstream.ignoreArrivals(true);
  const { api, app } = testBackend(db, {
    config: readConfig({}),
    registry: createRegistry(await loadApps()),
    bots: new Map([[bot.slug, bot]]),
    grantSecret: secret,
    providers: [{ name: 'local', baseUrl: upstream.baseUrl, apiKey: 'k', model: MODEL }],
    live: true,
    prices: PRICES,
    siteLimits: SITE_LIMITS_DEFAULT,
  });
  const server = await serveApp(app);
  try {
    const persons = Array.from({ length: PERSONS }, (_, i) => `bench-door-${String(i)}`);
    for (const person of persons) {
      for (let i = 0; i < SEEDED_MEMORIES; i++) {
        const text = remark(random);
        const embedding = await hashEmbedder.embed(text);
        await db.asServer((tx) => rememberLine(tx, { person, bot: bot.slug, text, embedder: hashEmbedder.name, embedding }));
      }
    }
    const grants = new Map(persons.map((person) => [person, signGrant(secret, grantClaims(bot, person, 'cookie', Date.now()))]));
    const answer = WORDS.join('');
    const wrong = (t: TurnResult) => t.status !== 200 || !t.done || t.text !== answer;
    const direct: number[] = [];
    const door: number[] = [];
    let errors = 0;
    let conversations = 0;
    for (let round = 0; round < WARM_UP + rounds; round++) {
      const person = persons[round % persons.length] ?? '';
      const messages = [{ role: 'user', content: random() < 0.5 ? question(random) : remark(random) }];
      const ask = {
        direct: () => streamedTurn(`${upstream.baseUrl}/chat/completions`, { authorization: 'Bearer k' }, { model: MODEL, stream: true, stream_options: { include_usage: true }, messages }),
        door: () =>
          streamedTurn(
            `${server.url}/v1/chat/completions`,
            { authorization: `Bearer ${grants.get(person) ?? ''}`, 'x-confab-conversation': `thread:bench-${(conversations += 1).toString(36)}`, 'x-confab-time-zone': 'Europe/Paris' },
            { model: 'ignored', stream: true, stream_options: { include_usage: true }, messages },
          ),
      };
      for (const path of round % 2 === 0 ? (['direct', 'door'] as const) : (['door', 'direct'] as const)) {
        const turn = await ask[path]();
        await delay(IDLE_BETWEEN_MS);
        if (round < WARM_UP) continue;
        if (wrong(turn)) errors += 1;
        else (path === 'direct' ? direct : door).push(turn.firstTokenMs);
      }
    }
    const directFirstTokenMs = spread(direct);
    const doorFirstTokenMs = spread(door);
    return { addedMsP50: roundMs(doorFirstTokenMs.p50 - directFirstTokenMs.p50), directFirstTokenMs, doorFirstTokenMs, rounds, errors };
  } finally {
    await server.close();
    await api.presence.close();
    await upstream.close();
  }
}
