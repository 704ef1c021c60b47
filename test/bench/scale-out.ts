/**
 * Confab as several instances over one Postgres: pgbouncer in transaction mode in front of it, and
 * `node build/server/index.js` twice on two ports sharing GRANT_SECRET, each request of a person
 * sent to the other instance in turn (test/helpers/scaleOutServers.ts starts them all; the parts
 * below are test/helpers/scaleOutScenarios.ts, whose constants they name).
 *
 * - Turns: `TURNS` turns ("add thing N to my shopping list", the stand-in and the lists app) from
 *   `TURNING` persons at once, each person's turns alternating instances; every `RETRY_EVERY`th is
 *   dropped `DROP_AFTER_MS` after it was sent and sent again, same turn id, to the other instance.
 *   Then each person's things are read back through the instance they did not last use
 *   (`/api/me/export`): `duplicateWrites` counts the things kept twice or missing and the `lists.add`
 *   effects beyond one a turn; `refusedAsStranger` counts every 401 and 403 of the run.
 * - Presence: one person's page A on instance 1 and page B on instance 2. `handoverMsP95`: from a
 *   page's claim sent to one instance until the other page's stream, on the other, says another page
 *   is active (its `yield`, its seat, or the window's presence event), the active page moving back
 *   and forth. `fanOutMsP95`: a line published on one until the other page's stream carries it, both
 *   ways. The same again with a third server given DATABASE_URL (the pooler) and no
 *   DATABASE_DIRECT_URL, which must say `presence.polling` at start: `handoverMsP95Polling`, whose
 *   slow half is the polling page's (told at its next read, every 500 ms).
 * - A killed run: a person's "go through my shopping list and remind me about each thing in an
 *   hour" (a run of the stand-in's script, a step every 600 ms); once it has written `KILL_AFTER_STEPS`
 *   steps, the instance holding its lease is killed with SIGKILL, mid-step, and nothing restarted.
 *   `killedRunFinished`: the other instance took it once the lease lapsed (30 s) and finished it,
 *   every reminder set once.
 * - Forgetting, on two more instances answering through a local provider (AGENTS_LIVE=1) that keeps
 *   every prompt it is sent: something the person said (kept as a memory) is recalled through
 *   instance 1 (`recalledBeforeForget`, without which the rest shows nothing), forgotten through
 *   instance 2 (the page's route), then asked after `FORGET_ASKS` times through each in turn:
 *   `recalledAfterForget` counts the prompts that still carried it.
 * - Ceilings, on two more instances (test/helpers/scaleOutLimits.ts): the site's answers a minute,
 *   new persons an hour from one address, an MCP token's calls a second, each over both together.
 * - Beside them, in the same run: what the door adds to the first token over the pooled Postgres
 *   and over PGlite (test/helpers/scaleOutDoor.ts), and recall's p95 over `recallMemories` memories
 *   on each (test/bench/recall.ts): 100 000, or 11 000 in the short form.
 *
 * `--short` (CI, through test/postgres/run.ts) keeps every turn and check, and shortens the slow
 * parts: the recall table, the door's rounds, the repeats of each timing. A check that does not hold
 * is said on stderr and the run exits non-zero, after its figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { FULL_SCALE, recallOver } from './recall';
import type { RecallScale } from './recall';
import { Tally } from '../helpers/scaleOutClient';
import { doorAddedOver } from '../helpers/scaleOutDoor';
import { mcpCallsHeld, newPersonsHeld, siteAnswersHeld } from '../helpers/scaleOutLimits';
import { buildServer, ROOT, startCluster, startInstance, wordVectorsIn } from '../helpers/scaleOutServers';
import type { Cluster, Instance } from '../helpers/scaleOutServers';
import { forgetAcross, headline, killedRunAcross, LEASE_MS, presenceAcross, TURNS, turnsAcross } from '../helpers/scaleOutScenarios';
import { startUpstream } from '../server/chat/localServers';
import type { BenchOptions, BenchResult, BenchTarget } from './run';

const HANDOVER_TARGET_MS = 300;
/** How the short and the full form differ: only in what takes long. */
const FORMS = {
  short: { handovers: 30, fanOuts: 20, pollingHandovers: 10, pollingFanOuts: 10, doorRounds: 60, recall: { persons: 100, heavyMemories: 2_000 } },
  full: { handovers: 100, fanOuts: 60, pollingHandovers: 30, pollingFanOuts: 30, doorRounds: 250, recall: FULL_SCALE },
} as const satisfies Record<string, { handovers: number; fanOuts: number; pollingHandovers: number; pollingFanOuts: number; doorRounds: number; recall: RecallScale }>;
const LIMITS = { siteAnswersPerMinute: 10, newPersonsPerHour: 10, mcpCallsPerSecond: 5 } as const;

export const targets: BenchTarget[] = [
  { figure: 'turns', atLeast: TURNS, what: 'turns, each person alternating instances' },
  { figure: 'duplicateWrites', atMost: 0, what: 'things kept twice or missing, and writes beyond one a turn' },
  { figure: 'refusedAsStranger', atMost: 0, what: '401 and 403 answers anywhere in the run' },
  { figure: 'handoverMsP95', atMost: HANDOVER_TARGET_MS, what: 'a claim on one instance → the other page told, p95' },
  { figure: 'recalledAfterForget', atMost: 0, what: 'prompts that recalled a memory forgotten through the other instance' },
];

/** The demo bot as the benchmark's servers load it: its per-person ceilings out of the way, and long work for a bare cookie. */
function writeBots(folder: string): string {
  const bots = join(folder, 'bots');
  mkdirSync(bots);
  const demo = readFileSync(join(ROOT, 'bots', 'demo.md'), 'utf8')
    .replace(/perMinute: \{[^}]*\}/, 'perMinute: { answers: 1000 }')
    .replace(/perDay: \{[^}]*\}/, 'perDay: { answers: 100000, spend: 100 }')
    .replace(/perMonth: \{[^}]*\}/, 'perMonth: { spend: 1000 }')
    .replace(/^---\n/, '---\nwork: anyone\n');
  writeFileSync(join(bots, 'demo.md'), demo);
  return bots;
}

/** What the door adds and what recall costs, on the pooled Postgres and on PGlite, one after the other. */
async function engines(cluster: Cluster, form: (typeof FORMS)[keyof typeof FORMS]) {
  const on = async (open: (database: string) => Promise<Database>) => {
    const doorDb = await open('door');
    const door = await doorAddedOver(doorDb, form.doorRounds).finally(() => doorDb.close());
    const recallDb = await open('recall');
    const recall = await recallOver(recallDb, form.recall).finally(() => recallDb.close());
    return { door, recall };
  };
  const postgres = await on((database) => openDatabase({ url: cluster.pooled(database) }));
  const pglite = await on(() => openDatabase({ dataDir: 'memory://' }));
  return { postgres, pglite };
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const form = options.short === true ? FORMS.short : FORMS.full;
  const phaseMs: Record<string, number> = {};
  let clock = performance.now();
  const lap = (name: string) => {
    phaseMs[name] = Math.round(performance.now() - clock);
    clock = performance.now();
  };
  buildServer();
  const folder = mkdtempSync(join(tmpdir(), 'confab-scale-out-'));
  const started: Instance[] = [];
  const provider = await startUpstream((reply) => {
    reply.token('Noted.');
    reply.finish();
    reply.usage(60, 2);
    reply.done();
  });
  let cluster: Cluster | undefined;
  try {
    const bots = writeBots(folder);
    const wordVectors = await wordVectorsIn(folder);
    cluster = await startCluster(['main', 'live', 'limits', 'door', 'recall']);
    const over = cluster;
    const shared = { GRANT_SECRET: randomBytes(32).toString('base64url'), CONFAB_BOTS_DIR: bots, CONFAB_STOP_GRACE_S: '0' };
    const pooled = (database: string) => ({ ...shared, DATABASE_URL: over.pooled(database), DATABASE_DIRECT_URL: over.direct(database) });
    const live = { ...pooled('live'), AGENTS_LIVE: '1', CONFAB_PROVIDERS: JSON.stringify([{ name: 'local', baseUrl: provider.baseUrl, model: 'm', keyEnv: 'LOCAL_KEY' }]), LOCAL_KEY: 'k', CONFAB_PRICES: '{"m":{"promptUsdPerMillion":0.15,"completionUsdPerMillion":0.6}}' };
    const limits = {
      ...pooled('limits'),
      CONFAB_SITE_LIMITS: JSON.stringify({ perMinute: { answers: LIMITS.siteAnswersPerMinute } }),
      CONFAB_NEW_PERSONS_PER_HOUR: String(LIMITS.newPersonsPerHour),
      MCP_MAX_CALLS_PER_SECOND: String(LIMITS.mcpCallsPerSecond),
      MCP_MAX_IN_FLIGHT_CALLS: '32',
    };
    const plan: [string, Record<string, string>][] = [
      ['one', pooled('main')],
      ['two', pooled('main')],
      ['polling', { ...shared, DATABASE_URL: over.pooled('main') }],
      ['live-one', live],
      ['live-two', live],
      ['limits-one', limits],
      ['limits-two', limits],
    ];
    // Every server starts at once, two or more over each database and five databases on one Postgres:
    // their migrations meet on the roles, which are the whole Postgres's.
    const starting = await Promise.allSettled(plan.map(([name, env]) => startInstance(name, env, wordVectors)));
    for (const outcome of starting) if (outcome.status === 'fulfilled') started.push(outcome.value);
    const refused = starting.find((outcome) => outcome.status === 'rejected');
    if (refused !== undefined) throw refused.reason;
    const [one, two, polling, liveOne, liveTwo, limitsOne, limitsTwo] = started as [Instance, Instance, Instance, Instance, Instance, Instance, Instance];
    // Every server reaches Postgres through the pooler alone, and the pooler answers.
    const probe = new pg.Client({ connectionString: over.pooled('main') });
    await probe.connect();
    const answered = await probe.query<{ one: number }>('select 1 as one').finally(() => probe.end());
    const pooler = answered.rows[0]?.one === 1 && plan.every(([, env]) => over.isPooled(env.DATABASE_URL ?? ''));
    lap('start');

    const tally = new Tally();
    const turns = await turnsAcross([one.url, two.url], tally);
    lap('turns');
    const presence = await presenceAcross(one.url, two.url, tally, form.handovers, form.fanOuts);
    const pollingSaid = polling.log.find((line) => line.event === 'presence.polling');
    const withPolling = await presenceAcross(one.url, polling.url, tally, form.pollingHandovers, form.pollingFanOuts);
    await polling.stop();
    lap('presence');
    const forget = await forgetAcross(liveOne.url, liveTwo.url, tally, provider);
    lap('forget');
    // The lease takes its 30 s to lapse: the ceilings are tried meanwhile, on servers of their own.
    const [killedRun, ceilings] = await Promise.all([
      killedRunAcross([one, two], over, tally),
      (async () => ({
        site: await siteAnswersHeld([limitsOne.url, limitsTwo.url], tally, LIMITS.siteAnswersPerMinute, 4, 2 * LIMITS.siteAnswersPerMinute),
        newPersons: await newPersonsHeld([limitsOne.url, limitsTwo.url], 'demo', LIMITS.newPersonsPerHour, 2 * LIMITS.newPersonsPerHour),
        mcp: await mcpCallsHeld([limitsOne.url, limitsTwo.url], tally, LIMITS.mcpCallsPerSecond, 5, 4),
      }))(),
    ]);
    lap('killed run and ceilings');
    const instances = turns.servedByInstance.filter((n) => n > 0).length;
    await Promise.all(started.map((instance) => instance.stop()));
    const measured = await engines(over, form);
    lap('door and recall');

    const held = {
      duplicateWrites: turns.duplicateWrites === 0 && killedRun.duplicateWrites === 0,
      refusedAsStranger: tally.strangers() === 0,
      killedRunFinished: killedRun.killedRunFinished,
      recalled: forget.recalledBeforeForget === 1,
      recalledAfterForget: forget.recalledAfterForget === 0,
      siteCeiling: ceilings.site.held,
      newPersons: ceilings.newPersons.held,
      mcpCallsPerSecond: ceilings.mcp.held,
      polling: pollingSaid !== undefined,
    };
    const broken = Object.entries(held).filter(([, ok]) => !ok).map(([name]) => name);
    if (broken.length > 0) {
      console.error(JSON.stringify({ event: 'scale-out.did-not-hold', checks: broken }));
      process.exitCode = 1;
    }
    return {
      bench: 'scale-out',
      short: options.short === true,
      instances,
      pooler,
      poolMode: 'transaction',
      turns: turns.turns,
      duplicateWrites: turns.duplicateWrites + killedRun.duplicateWrites,
      refusedAsStranger: tally.strangers(),
      killedRunFinished: killedRun.killedRunFinished,
      // Not measured (null) unless the same memory was recalled before it was forgotten.
      recalledAfterForget: forget.recalledBeforeForget === 1 ? forget.recalledAfterForget : null,
      siteCeilingHeld: ceilings.site.held,
      newPersonsHeld: ceilings.newPersons.held,
      mcpCallsPerSecondHeld: ceilings.mcp.held,
      handoverMsP95: presence.handoverMs.p95,
      handoverMsP50: presence.handoverMs.p50,
      handoverMsP95Polling: withPolling.handoverMs.p95,
      fanOutMsP95: Math.max(presence.fanOutMs.firstToSecond.p95, presence.fanOutMs.secondToFirst.p95),
      doorAddedMsP50Postgres: measured.postgres.door.addedMsP50,
      doorAddedMsP50Pglite: measured.pglite.door.addedMsP50,
      recallMemories: measured.postgres.recall.memories,
      recallP95MsPostgres: measured.postgres.recall.p95Ms,
      recallP95MsPglite: measured.pglite.recall.p95Ms,
      turnsDetail: { persons: turns.persons, servedByInstance: turns.servedByInstance, retriedOnTheOther: turns.retried, failed: turns.failed, duplicateWrites: turns.duplicateWrites },
      answersByStatus: Object.fromEntries(tally.byStatus),
      presence: {
        handovers: presence.handoverMs.n,
        handoverMs: headline(presence.handoverMs),
        handoverMsByTold: { onOne: presence.handoverByTold.onFirst, onTwo: presence.handoverByTold.onSecond },
        fanOutMs: { oneToTwo: headline(presence.fanOutMs.firstToSecond), twoToOne: headline(presence.fanOutMs.secondToFirst) },
      },
      polling: {
        logged: pollingSaid !== undefined,
        everyMs: pollingSaid?.everyMs,
        handovers: withPolling.handoverMs.n,
        handoverMs: headline(withPolling.handoverMs),
        // The polling instance hears the listening one every PRESENCE_POLL_MS; the other way is at once.
        handoverMsByTold: { onListening: withPolling.handoverByTold.onFirst, onPolling: withPolling.handoverByTold.onSecond },
        fanOutMs: { toPolling: headline(withPolling.fanOutMs.firstToSecond), fromPolling: headline(withPolling.fanOutMs.secondToFirst) },
      },
      killedRun: { killed: killedRun.killed, afterSteps: killedRun.atStep, state: killedRun.state, resumeMs: killedRun.resumeMs, leaseMs: LEASE_MS, reminders: killedRun.reminders, duplicateWrites: killedRun.duplicateWrites },
      forget,
      ceilings,
      door: { postgres: measured.postgres.door, pglite: measured.pglite.door },
      recall: Object.fromEntries(
        (['postgres', 'pglite'] as const).map((engine) => {
          const r = measured[engine].recall;
          return [engine, { memories: r.memories, p50Ms: r.p50Ms, p95Ms: r.p95Ms, hnswUsed: r.hnswUsed, byPerson: r.byPerson, heavyAgreementWithExact: r.heavyAgreementWithExact }];
        }),
      ),
      held,
      database: cluster.throwaway ? 'a throwaway Postgres (CONFAB_TEST_DATABASE_URL unset)' : 'CONFAB_TEST_DATABASE_URL',
      phaseMs,
    };
  } finally {
    await Promise.all(started.map((instance) => instance.stop('SIGKILL')));
    await provider.close();
    await cluster?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
