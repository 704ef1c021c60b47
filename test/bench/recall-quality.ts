/**
 * Recall quality: does a `person+recall` bot bring back what a person told it when they ask about it
 * in other words, and nothing when they ask about something else? Per embedder that loads here:
 *
 * - top1 / top3: of the 221 remark/question pairs (test/bench/recall-quality/pairs.ts: ten people ×
 *   20 remarks, questions in other words), the share whose remark recall answers first / among its
 *   first three — recall exactly as the memory context calls it (limit RECALL_LIMIT, the embedder's
 *   own floor), over that person's 20 memories in an in-memory PGlite with the real migrations.
 * - falseRecall: of the 60 questions about nothing anyone said, each asked of each of the ten
 *   people, the share for which recall answers anything at all.
 * - rank (no floor): top1/top3 of the ranking alone, for what the floor costs.
 * - sweep: top3 and falseRecall at other floors, on the calibration set (where floors are chosen)
 *   and on the evaluation set (reported, never tuned on); `suggestedFloor` is the largest floor in
 *   steps of 0.05 whose calibration false recall is at most 5 %.
 *
 * `default` is the embedder the server picks with CONFAB_EMBEDDER unset (`chooseEmbedder`), `hash`
 * the lexical one beside it. `rssMb` is the resident memory of the real server (`server/index.ts`,
 * its data folder in a temporary directory holding only the word vectors), read from /proc once
 * `GET /api/health` answers, with the default embedder and with `hash`.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { recall, registerEmbedder, rememberLine } from '../../server/db/memories';
import { chooseEmbedder } from '../../server/memory/chooseEmbedder';
import type { EmbedderStatus } from '../../server/memory/chooseEmbedder';
import { RECALL_LIMIT, recallFloorOf } from '../../server/memory/context';
import { hashEmbedder, widthOf } from '../../server/memory/embed';
import type { Embedder } from '../../server/memory/embed';
import { loadSentenceModel } from '../../server/memory/miniLm';
import { wordEmbedder } from '../../server/memory/wordEmbedder';
import { ensureWordVectors, WORD_VECTORS_FILE } from '../../server/memory/wordVectors';
import { CALIBRATION_DISTRACTORS, CALIBRATION_PEOPLE } from './recall-quality/calibration';
import { DISTRACTORS, PEOPLE } from './recall-quality/pairs';
import type { Person } from './recall-quality/pairs';

const TARGET = { top3: 0.8, falseRecall: 0.05 } as const;
const SWEEP = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9] as const;
const round = (value: number) => Number(value.toFixed(3));

/** For one question: where its remark came in the unfloored ranking, and at what distance. */
interface Asked {
  rank: number;
  distance: number;
}

interface Measured {
  asked: Asked[];
  /** Nearest distance for each distractor asked of each person; Infinity when they have none. */
  distractors: number[];
}

/** Every person's remarks kept as memories of `embedder`, then every question and distractor recalled. */
async function measure(db: Database, embedder: Embedder, people: readonly Person[], distractors: readonly string[], run: string): Promise<Measured> {
  const dimensions = widthOf(embedder);
  await db.asServer((tx) => registerEmbedder(tx, { name: embedder.name, dimensions }));
  const ids = new Map<string, string>();
  for (const person of people) {
    for (const fact of person.facts) {
      const embedding = await embedder.embed(fact.said);
      const kept = await db.asServer((tx) => rememberLine(tx, { person: `${run}:${person.name}`, bot: 'demo', text: fact.said, embedder: embedder.name, embedding }));
      if (kept === null) throw new Error(`${embedder.name} gave no vector for a remark of ${person.name}'s.`);
      ids.set(`${person.name}\n${fact.said}`, kept.id);
    }
  }
  const ranked = async (person: string, question: string) => {
    const embedding = await embedder.embed(question);
    return db.asServer((tx) => recall(tx, { person: `${run}:${person}`, bot: 'demo', embedder: embedder.name, dimensions, embedding, limit: RECALL_LIMIT, maxDistance: 2 }));
  };
  const asked: Asked[] = [];
  for (const person of people) {
    for (const fact of person.facts) {
      for (const question of fact.asked) {
        const found = await ranked(person.name, question);
        const rank = found.findIndex((m) => m.id === ids.get(`${person.name}\n${fact.said}`));
        asked.push({ rank: rank < 0 ? Number.POSITIVE_INFINITY : rank, distance: rank < 0 ? Number.POSITIVE_INFINITY : (found[rank]?.distance ?? Number.POSITIVE_INFINITY) });
      }
    }
  }
  const nearest: number[] = [];
  for (const question of distractors) {
    for (const person of people) nearest.push((await ranked(person.name, question))[0]?.distance ?? Number.POSITIVE_INFINITY);
  }
  return { asked, distractors: nearest };
}

/** Figures at `floor`: recall answers the ranking cut at the floor, so a remark counts when it is both high enough and near enough. */
function at(measured: Measured, floor: number) {
  const hit = (k: number) => measured.asked.filter((a) => a.rank < k && a.distance <= floor).length / measured.asked.length;
  return { top1: round(hit(1)), top3: round(hit(3)), falseRecall: round(measured.distractors.filter((d) => d <= floor).length / measured.distractors.length) };
}

function sweep(measured: Measured) {
  return SWEEP.map((floor) => ({ floor, ...at(measured, floor) }));
}

async function evaluate(db: Database, embedder: Embedder) {
  const run = embedder.name;
  const evaluation = await measure(db, embedder, PEOPLE, DISTRACTORS, `eval:${run}`);
  const calibration = await measure(db, embedder, CALIBRATION_PEOPLE, CALIBRATION_DISTRACTORS, `cal:${run}`);
  const floor = recallFloorOf(embedder);
  const calibrationSweep = sweep(calibration);
  const suggested = calibrationSweep.filter((s) => s.falseRecall <= TARGET.falseRecall).at(-1)?.floor ?? null;
  return {
    name: embedder.name,
    meaning: embedder.meaning ?? false,
    dimensions: widthOf(embedder),
    floor,
    ...at(evaluation, floor),
    rank: { top1: at(evaluation, Number.POSITIVE_INFINITY).top1, top3: at(evaluation, Number.POSITIVE_INFINITY).top3 },
    calibration: { ...at(calibration, floor), suggestedFloor: suggested, sweep: calibrationSweep },
    sweep: sweep(evaluation),
  };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        done(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  });
}

/** The real server's resident memory once it answers `GET /api/health`, in MB, and what it says of its embedder. */
async function serverRss(env: Record<string, string>, dataDir: string): Promise<{ rssMb: number; embedder: EmbedderStatus | undefined }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', CONFAB_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`The server exited (${child.exitCode}): ${said.slice(-500)}`);
      if (Date.now() > deadline) throw new Error(`The server did not answer within 120 s: ${said.slice(-500)}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (response.ok) {
          const health = (await response.json()) as { embedder?: EmbedderStatus };
          // Settled: a moment for start-up garbage to be collected, as a server that has run a while would be.
          await new Promise((done) => setTimeout(done, 2_000));
          const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
          const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
          return { rssMb: Math.round(kb / 1024), embedder: health.embedder };
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((done) => setTimeout(done, 250));
    }
  } finally {
    child.kill('SIGTERM');
  }
}

export async function run() {
  const dataDir = resolve(process.env.CONFAB_DATA_DIR || '.data');
  const lines: string[] = [];
  const log = (line: object) => lines.push(JSON.stringify(line));
  const chosen = await chooseEmbedder({ kind: 'auto' }, { dataDir, log });
  const embedders: Embedder[] = [chosen.embedder];
  if (chosen.embedder.name !== hashEmbedder.name) embedders.push(hashEmbedder);
  // The other local embedders, when they load here, for comparison.
  const others: Record<string, { available: false; why: string }> = {};
  const words = await ensureWordVectors(dataDir, log);
  if ('vectors' in words) {
    const embedder = wordEmbedder(words.vectors);
    if (!embedders.some((e) => e.name === embedder.name)) embedders.push(embedder);
  } else others.words = { available: false, why: words.why };
  try {
    const embedder = await loadSentenceModel({ modelsDir: join(dataDir, 'models') });
    if (!embedders.some((e) => e.name === embedder.name)) embedders.push(embedder);
  } catch (error) {
    others.minilm = { available: false, why: (error as Error).message };
  }

  const db = await openDatabase({ dataDir: 'memory://' });
  const results = [];
  try {
    for (const embedder of embedders) results.push(await evaluate(db, embedder));
  } finally {
    await db.close();
  }
  const [chosenResult, ...rest] = results;
  const hashResult = results.find((r) => r.name === hashEmbedder.name);

  // The server's memory, with a data folder of its own holding only the converted word vectors.
  const serverDir = await mkdtemp(join(tmpdir(), 'confab-rss-'));
  let rss: Record<string, unknown>;
  try {
    if ('vectors' in words) {
      await mkdir(join(serverDir, 'word-vectors'), { recursive: true });
      await copyFile(join(dataDir, WORD_VECTORS_FILE), join(serverDir, WORD_VECTORS_FILE));
    }
    const withDefault = await serverRss({}, join(serverDir, 'default'));
    const withHash = await serverRss({ CONFAB_EMBEDDER: 'hash' }, join(serverDir, 'hash'));
    rss = { defaultMb: withDefault.rssMb, hashMb: withHash.rssMb, embedder: withDefault.embedder };
  } catch (error) {
    rss = { error: (error as Error).message };
  } finally {
    await rm(serverDir, { recursive: true, force: true });
  }

  const pairs = PEOPLE.reduce((sum, person) => sum + person.facts.reduce((n, fact) => n + fact.asked.length, 0), 0);
  const met = chosenResult !== undefined && chosenResult.top3 >= TARGET.top3 && chosenResult.falseRecall <= TARGET.falseRecall;
  return {
    bench: 'recall-quality' as const,
    pairs,
    remarks: PEOPLE.reduce((sum, person) => sum + person.facts.length, 0),
    people: PEOPLE.length,
    distractors: DISTRACTORS.length,
    distractorQueries: DISTRACTORS.length * PEOPLE.length,
    target: TARGET,
    met,
    default: chosenResult,
    hash: hashResult,
    others: [...rest.filter((r) => r.name !== hashEmbedder.name), ...Object.entries(others).map(([name, why]) => ({ name, ...why }))],
    chosen: chosen.status,
    rss,
    limit: RECALL_LIMIT,
    engine: 'PGlite in memory (memory://), recall() as the memory context calls it',
  };
}
