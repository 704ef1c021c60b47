/**
 * Work that outlives a turn: RUNS runs of five steps each (model, tool, model, tool, model, then
 * the saying of the answer) over two workers, each in a process of its own over one database
 * reached by URL (PGlite served by pglite-socket, or the real Postgres of
 * CONFAB_TEST_DATABASE_URL), as two server instances share one Postgres. Once half the runs have
 * finished, one worker's process is killed with SIGKILL, whatever it was doing; the other takes its
 * runs over once their leases lapse, and a third process starts in the dead one's place. A worker
 * holds a few runs at a time (CONCURRENCY), so one kill leaves only two or three to take over: to
 * give the resume figure more than a handful of samples, the newest worker is killed in the same
 * way at each of KILLS_AT (shares of the runs finished), always leaving two alive.
 *
 * - finished: runs whose answer was said (state `finished`); lostRuns: runs not ended at all.
 * - duplicateWrites: writes that took effect more than once (the `lists.add` effects recorded
 *   beyond the two each run asks for, and items on a list beyond them).
 * - resumeMsP95: for each run the dead worker held, from the moment its lease lapsed (the
 *   `lease_until` it left behind) to the next step of that run begun by another worker. The lease
 *   is LEASE_MS; target p95 ≤ 2 × the lease.
 *
 * Then, on the page: the real server (with its run worker, the stand-in pacing a scripted run's
 * model step by PAGE_STEP_MS, as a model thinking over a list and a slow outside tool take seconds,
 * longer than the page's gap between two words of a run's progress, `PROGRESS_GAP_MS`) serving
 * `vite build --mode e2e` to Chromium with the fake recogniser. The person has three things on
 * their list and asks PAGE_RUNS times in turn "go through my shopping list and remind me about each
 * thing in an hour", saying nothing more. progressMsP95: from a tool step's end (its row written, on
 * the server's clock) to its progress sentence shown on the page (one machine, one clock), for each
 * progress sentence the page said of a step that ended while the page was quiet — between turns —
 * and outside the gap after the run's last word; target p95 ≤ 1 s. A step that ended while the page
 * spoke, or within the gap, is said after it, in the newest word of its run (not counted here), and
 * a word replaced by a newer one before it could be said is not said at all.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from '@playwright/test';
import { loadBots } from '../../server/bots';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { startRun } from '../../server/runs/runsApi';
import type { RunEvent } from '../../server/runs/worker';
import { PROGRESS_GAP_MS } from '../../src/core/presence/narration';
import { FakeSpeech } from '../e2e/page/fakeRecogniser';
import { benchFolder, buildPage, launchChromium, NAME_HELPER, ROOT, startBenchServer, tinyVoice } from '../helpers/benchPage';
import { spread } from '../helpers/benchTimings';
import { startWorkerProcess } from '../helpers/runWorkerProcess';
import type { WorkerProcess } from '../helpers/runWorkerProcess';
import { somebody, startSocketPostgres } from '../server/db/fixtures';
import type { SocketPostgres } from '../server/db/fixtures';
import { VERBS } from '../server/runs/runFixtures';
import type { BenchResult, BenchTarget } from './run';

const RUNS = 200;
const PAGE_RUNS = 4;
const PAGE_STEP_MS = 9_000;
const PROGRESS_TARGET_MS = 1_000;
const LEASE_MS = 500;
const CONCURRENCY = 3;
const PATIENCE_MS = 240_000;
/** When a worker is killed: the share of the runs finished by then. The half is the mid-way kill. */
const KILLS_AT = [0.2, 0.35, 0.5, 0.65, 0.8] as const;

export const targets: BenchTarget[] = [
  { figure: 'finished', atLeast: RUNS, what: `runs finished of ${String(RUNS)}, a worker killed at each of ${String(KILLS_AT.length)} points, half-way among them` },
  { figure: 'duplicateWrites', atMost: 0, what: 'writes that took effect twice' },
  { figure: 'lostRuns', atMost: 0, what: 'runs never ended' },
  { figure: 'resumeMsP95', atMost: 2 * LEASE_MS, what: `lease lapse → the next step begun by another worker, p95 (lease ${String(LEASE_MS)} ms)` },
  { figure: 'progressMsP95', atMost: PROGRESS_TARGET_MS, what: "a run's step ended → its progress sentence on the page, p95, between turns" },
];

interface Seen {
  /** The first step each owner began, per run: owner → ms. */
  begun: Map<string, Map<string, number>>;
  ended: Set<string>;
}

export async function run(): Promise<BenchResult> {
  const external = process.env.CONFAB_TEST_DATABASE_URL;
  const served: SocketPostgres | undefined = external === undefined || external === '' ? await startSocketPostgres() : undefined;
  const url = served === undefined ? (external ?? '') : served.url;
  const db = await openDatabase({ url, poolSize: 2 });
  const seen: Seen = { begun: new Map(), ended: new Set() };
  const onEvent = (event: RunEvent) => {
    if (event.event === 'run.step-begun') {
      const byOwner = seen.begun.get(event.runId) ?? new Map<string, number>();
      if (!byOwner.has(event.owner)) byOwner.set(event.owner, event.atMs);
      seen.begun.set(event.runId, byOwner);
    } else if (event.event === 'run.ended') seen.ended.add(event.runId);
  };
  const workers: WorkerProcess[] = [];
  try {
    const people: { id: string; person: string }[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const person = somebody(`long${String(i)}`);
      const asked = `add apples ${String(i)} to my shopping list, then add pears ${String(i)} to my shopping list`;
      const id = await startRun(db, { person, bot: 'buddy', conversationKey: `conv-${String(i)}`, asked, scripted: true, verbs: VERBS, maxSteps: 12, maxSpendUsd: 0.5, maxMinutes: 10 }, Date.now());
      if (id === undefined) throw new Error('Each run is its own person’s: none can be busy already.');
      people.push({ id, person });
    }
    const worker = (owner: string) => startWorkerProcess({ url, owner, leaseMs: LEASE_MS, concurrency: CONCURRENCY, onEvent });
    workers.push(worker('bench-b'), worker('bench-killed-1'));
    /** Each run a killed worker left holding: who held it, and when its lease lapsed. */
    const lapses = new Map<string, { owner: string; lapsedAtMs: number }>();
    for (const [k, share] of KILLS_AT.entries()) {
      await until(() => seen.ended.size >= RUNS * share, PATIENCE_MS, `${String(Math.round(share * 100))} % of the runs to finish`);
      const victim = `bench-killed-${String(k + 1)}`;
      await (workers.at(-1) as WorkerProcess).kill();
      const { rows } = await db.asServer((tx) => tx.query<{ id: string; lease_until: Date | string }>("select id, lease_until from runs where lease_owner = $1 and state = 'running'", [victim]));
      for (const row of rows) lapses.set(row.id, { owner: victim, lapsedAtMs: new Date(row.lease_until).getTime() });
      workers.push(worker(`bench-killed-${String(k + 2)}`));
    }
    await until(() => seen.ended.size >= RUNS, PATIENCE_MS, 'every run to end');

    const resumes = [...lapses].flatMap(([id, { owner: dead, lapsedAtMs }]) => {
      const byOwner = seen.begun.get(id);
      const taken = [...(byOwner ?? new Map<string, number>())].filter(([owner, atMs]) => owner !== dead && atMs >= lapsedAtMs).map(([, atMs]) => atMs);
      return taken.length === 0 ? [] : [Math.min(...taken) - lapsedAtMs];
    });
    const states = await db.asServer((tx) => tx.query<{ state: string; n: number }>('select state, count(*)::int as n from runs group by state'));
    const count = (state: string) => states.rows.find((row) => row.state === state)?.n ?? 0;
    const duplicateWrites = await duplicates(db, people.map((p) => p.person));
    const resume = spread(resumes);
    const page = await progressOnThePage();
    const progress = spread(page.counted);
    return {
      bench: 'long-work',
      runs: RUNS,
      finished: count('finished'),
      duplicateWrites,
      lostRuns: RUNS - (count('finished') + count('failed') + count('cancelled') + count('out_of_budget')),
      resumeMsP95: resume.p95,
      resumeMsP50: resume.p50,
      progressMsP95: progress.p95,
      progressMsP50: progress.p50,
      progressSaid: progress.n,
      progressWords: page.words,
      progressHeld: page.held,
      progressAfterSpeech: page.afterSpeech,
      pageToolSteps: page.toolSteps,
      kills: KILLS_AT.length,
      takenOver: lapses.size,
      resumed: resumes.length,
      leaseMs: LEASE_MS,
      workers: 2,
      concurrency: CONCURRENCY,
      database: served === undefined ? 'postgres' : 'pglite-socket',
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await db.close();
    await served?.stop();
  }
}

/** Writes beyond the two each run's person asked for: recorded `lists.add` effects, and items kept. */
async function duplicates(db: Database, people: readonly string[]): Promise<number> {
  const { rows } = await db.asServer((tx) =>
    tx.query<{ person: string; calls: number }>("select person, count(*)::int as calls from verb_calls where verb = 'lists.add' and person = any($1) group by person", [people]),
  );
  const items = await db.asServer((tx) => tx.query<{ person: string; n: number }>('select person, count(*)::int as n from list_items where person = any($1) group by person', [people]));
  const over = (n: number) => Math.max(0, n - 2);
  return rows.reduce((sum, row) => sum + over(row.calls), 0) + items.rows.reduce((sum, row) => sum + over(row.n), 0);
}

async function until(done: () => boolean, withinMs: number, what: string): Promise<void> {
  const untilMs = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > untilMs) throw new Error(`Waited ${String(withinMs)} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const PROGRESS = /^I'm still on it: (\d+) steps? done so far\.$/;
const TAKEN_ON = "I'm on it — I'll tell you when it's done.";

interface PageProgress {
  /** From a step's end to its progress sentence shown, ms: the steps that ended while the page was quiet, outside the gap. */
  counted: number[];
  /** Every progress sentence the page said. */
  words: number;
  /** Of them, for a step that ended within the gap after the run's last word. */
  held: number;
  /** Of them, for a step that ended while the page spoke. */
  afterSpeech: number;
  /** The tool steps of the page's runs. */
  toolSteps: number;
}

/** Each progress sentence the page showed, and from its step's end to the moment it was shown. */
async function progressOnThePage(): Promise<PageProgress> {
  const folder = benchFolder('long-work');
  let browser: Browser | null = null;
  try {
    const dist = join(folder.path, 'dist');
    buildPage(dist, 'e2e');
    const bots = join(folder.path, 'bots');
    mkdirSync(bots);
    // The page's person is a bare cookie, whom only a bot that says `work: anyone` lets start long runs.
    writeFileSync(join(bots, 'demo.md'), readFileSync(resolve(ROOT, 'bots', 'demo.md'), 'utf8').replace(/perMinute: \{[^}]*\}/, 'perMinute: { answers: 1000 }').replace(/^---\n/, '---\nwork: anyone\n'));
    const server = await startBenchServer({ dist, bots: await loadBots(bots), models: tinyVoice(join(folder.path, 'models')), runs: { scriptedStepMs: PAGE_STEP_MS } });
    try {
      browser = await launchChromium(join(folder.path, 'mic'));
      const page = await (await browser.newContext()).newPage();
      await page.addInitScript(NAME_HELPER);
      await FakeSpeech.install(page, { refused: false });
      await page.goto(new URL('/voice/demo', server.url).href);
      await page.getByTestId('start-listening').click();
      await page.evaluate(() => {
        const w = window as unknown as { shown: { text: string; atMs: number }[]; sounding: { audible: boolean; atMs: number }[] };
        w.shown = [];
        w.sounding = [];
        const surface = document.querySelector('[data-audible]');
        if (surface !== null) {
          new MutationObserver(() => {
            w.sounding.push({ audible: surface.getAttribute('data-audible') === 'true', atMs: performance.timeOrigin + performance.now() });
          }).observe(surface, { attributes: true, attributeFilter: ['data-audible'] });
        }
        // Each assistant bubble once, from when it first shows words; its text as it grows.
        const entries = new Map<Element, { text: string; atMs: number }>();
        new MutationObserver(() => {
          for (const bubble of document.querySelectorAll('[data-testid="transcript"] li[data-role="assistant"] .bubble')) {
            const text = bubble.textContent.trim();
            if (text === '') continue;
            const entry = entries.get(bubble);
            if (entry !== undefined) {
              entry.text = text;
              continue;
            }
            const shown = { text, atMs: performance.timeOrigin + performance.now() };
            entries.set(bubble, shown);
            w.shown.push(shown);
          }
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      const shown = () => page.evaluate(() => (window as unknown as { shown: { text: string; atMs: number }[] }).shown);
      const say = async (line: string, answered: (text: string) => boolean) => {
        const before = (await shown()).length;
        // Said the moment the page listens (it does not while it speaks), in one step.
        await page.waitForFunction((text) => window.fakeSpeech.running && (window.fakeSpeech.final(text), true), line, { timeout: PAGE_PATIENCE_MS, polling: 20 });
        for (const untilMs = Date.now() + PAGE_PATIENCE_MS; !(await shown()).slice(before).some((l) => answered(l.text)); ) {
          if (Date.now() > untilMs) throw new Error(`No answer to "${line}" on the page.`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      // Three things: the run reads the list, then sets a reminder for each, a step every PAGE_STEP_MS or so.
      for (const thing of ITEMS) await say(`Add ${thing} to my shopping list.`, (t) => t.includes(thing));
      for (let i = 0; i < PAGE_RUNS; i += 1) {
        const before = (await shown()).length;
        await say('Go through my shopping list and remind me about each thing in an hour.', (t) => t === TAKEN_ON);
        // Its ending, said as a notice once it finished, before the next is asked for.
        for (const untilMs = Date.now() + PAGE_PATIENCE_MS; !(await shown()).slice(before).some((l) => l.text.endsWith(`about ${ITEMS.at(-1) ?? ''}.`)); ) {
          if (Date.now() > untilMs) throw new Error('A run’s ending was never said on the page.');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const lines = await shown();
      const sounding = await page.evaluate(() => (window as unknown as { sounding: { audible: boolean; atMs: number }[] }).sounding);
      const quietAt = (atMs: number) => !(sounding.findLast((change) => change.atMs <= atMs)?.audible ?? false);
      const { rows } = await server.db.asServer((tx) =>
        tx.query<{ run: string; seq: number; created_at: Date; run_created: Date }>(
          "select s.run, s.seq, s.created_at, r.created_at as run_created from run_steps s join runs r on r.id = s.run where s.kind = 'tool' order by r.created_at, s.seq",
        ),
      );
      // The runs in the order they were taken on, each with its tool steps' ends.
      const runs = [...new Set(rows.map((row) => row.run))].map((run) => rows.filter((row) => row.run === run).map((row) => new Date(row.created_at).getTime()));
      const taken = lines.map((line, i) => ({ ...line, i })).filter((line) => line.text === TAKEN_ON);
      const said = taken.flatMap((start, r) => {
        const end = taken[r + 1]?.i ?? lines.length;
        let lastWordAtMs = Number.NEGATIVE_INFINITY;
        return lines.slice(start.i + 1, end).flatMap((line) => {
          const n = PROGRESS.exec(line.text)?.[1];
          const stepAtMs = n === undefined ? undefined : runs[r]?.[Number(n) - 1];
          if (stepAtMs === undefined) return [];
          // The last word was passed on no later than it was shown: outside the gap after it, this one was not held.
          const held = stepAtMs - lastWordAtMs < PROGRESS_GAP_MS;
          lastWordAtMs = line.atMs;
          return [{ held, quiet: quietAt(stepAtMs), ms: line.atMs - stepAtMs }];
        });
      });
      return {
        counted: said.filter((w) => !w.held && w.quiet).map((w) => w.ms),
        words: said.length,
        held: said.filter((w) => w.held).length,
        afterSpeech: said.filter((w) => !w.held && !w.quiet).length,
        toolSteps: rows.length,
      };
    } finally {
      await browser?.close();
      await server.close();
    }
  } finally {
    folder.dispose();
  }
}

const PAGE_PATIENCE_MS = 90_000;
const ITEMS = ['milk', 'eggs', 'bread'] as const;
