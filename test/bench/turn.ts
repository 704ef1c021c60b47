/**
 * One spoken turn in Chromium, the way a person has it: from the recogniser's final transcript to
 * the first sample of the answer scheduled in the player (its first `AudioBufferSourceNode.start`).
 *
 * The real page (`vite build --mode e2e`: the product page with a worker that takes the tiny
 * stand-in voice graphs), the real server composed in-process (test/helpers/benchPage.ts) with the
 * door, its grant, admission, ledger and memory; Sage from bots/demo.md, without the greeting (so
 * a fresh conversation is the person's at once) and with its windows raised so every run is
 * admitted. The fake recogniser of the browser tests says each question; a silent fake microphone.
 *
 * The language model is a stand-in on 127.0.0.1 speaking OpenAI's streaming format, in a thread of
 * its own (test/helpers/scriptedModel.ts: a real model's pace does not slow when Confab's server is
 * busy): it answers at once (a model's own thinking time is not the page's) and streams a
 * Sage-shaped answer word by word `TOKEN_GAP_MS` apart, a fast hosted model's pace. So the figure is
 * what Confab itself adds between the person finishing and the voice starting: the machine, the
 * door's round trip, the chunker waiting for the opening piece's boundary, the worker's synthesis
 * of it with the tiny graphs, and the player.
 *
 * Each run is a fresh conversation (the drawer's "New conversation", which also stops the answer
 * being spoken, so the next run does not wait for it to finish), with a question of its own. Four
 * runs warm up first (the worker compiles its graphs on the first piece) and are not counted.
 * Also reported, as medians from the same moment: the door's answer headers (`doorMs`) and the
 * opening piece asked of the worker (`pieceAskedMs`).
 */
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { loadBots } from '../../server/bots';
import type { Bot } from '../../server/bots';
import { FakeSpeech } from '../e2e/page/fakeRecogniser';
import { generous } from '../helpers/benchLimits';
import { spread } from '../helpers/benchTimings';
import { NAME_HELPER, ROOT, benchFolder, buildPage, launchChromium, startBenchServer, tinyVoice } from '../helpers/benchPage';
import { startScriptedModel } from '../helpers/scriptedModel';
import type { BenchTarget } from '../helpers/benchSummary';

const RUNS = 24;
const WARM_UP = 4;
const MODEL = 'bench-model';
const TOKEN_GAP_MS = 15;
/** Sage's way: the answer first, in short sentences of plain speech. */
const ANSWER =
  'It is cold and dusty on Mars today. The high is about minus twenty degrees, and a thin wind keeps moving the sand around. ' +
  'If you ever go, bring a very warm coat.';
const PATIENCE_MS = 60_000;
const TARGET_P50_MS = 300;

export const targets: BenchTarget[] = [{ figure: 'p50Ms', atMost: TARGET_P50_MS, what: 'final transcript → first answer sample scheduled, median' }];

/** A different question each run, none like another (a question like the last answer would be heard as its echo). */
const QUESTIONS = [
  'What is the weather like on Mars today?',
  'How far away is the moon?',
  'Can you suggest a quick breakfast?',
  'Why do cats purr?',
  'Which river is the longest in Europe?',
  'How do I keep basil alive indoors?',
  'What should I read on a long train ride?',
  'Is it better to run in the morning?',
  'How many bones does a person have?',
  'What makes bread rise?',
  'Where do swallows spend the winter?',
  'How loud is a thunderclap?',
  'Tell me something about octopuses.',
  'When was the printing press invented?',
  'What is a good name for a goldfish?',
  'How do bees make honey?',
  'Why is the sky blue?',
  'What can I cook with lentils?',
  'How deep is the ocean at its deepest?',
  'Which planet has the most moons?',
  'How do I fold a paper crane?',
  'What does a lighthouse keeper do?',
  'How long should an egg boil?',
  'Why do leaves change colour in autumn?',
  'What is the tallest mountain in Africa?',
  'How do submarines dive?',
  'What do owls eat at night?',
  'Could you name a calm piece of piano music?',
] as const;

/**
 * Marks what the page does after the final transcript, on its own clock (`performance.now()`):
 * the door asked and answering, the opening piece asked of the worker (comlink's `speak`), and the
 * first buffer source started. A plain string, so nothing of tsx's reaches the page.
 */
const MARKS = `(() => {
  const marks = { armed: false, askedAt: null, doorAt: null, pieceAskedAt: null, firstSampleAt: null };
  window.turnMarks = marks;
  const start = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function (...args) {
    if (marks.armed && marks.firstSampleAt === null) marks.firstSampleAt = performance.now();
    return start.apply(this, args);
  };
  const pageFetch = window.fetch;
  window.fetch = function (...args) {
    const url = String(args[0] instanceof Request ? args[0].url : args[0]);
    const answer = pageFetch.apply(this, args);
    if (marks.armed && url.includes('/v1/chat/completions')) {
      if (marks.askedAt === null) marks.askedAt = performance.now();
      answer.then(() => { if (marks.doorAt === null) marks.doorAt = performance.now(); }, () => undefined);
    }
    return answer;
  };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (marks.armed && marks.pieceAskedAt === null && message !== null && typeof message === 'object' && Array.isArray(message.path) && message.path.includes('speak')) {
      marks.pieceAskedAt = performance.now();
    }
    return post.call(this, message, ...rest);
  };
})();`;

interface Marks {
  askedAt: number | null;
  doorAt: number | null;
  pieceAskedAt: number | null;
  firstSampleAt: number | null;
}

interface Turn {
  firstSampleMs: number;
  askedMs: number;
  doorMs: number;
  pieceAskedMs: number;
}

/** Waits until the conversation is the person's and the recogniser listens. */
async function listening(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('[data-testid="orb"]')?.getAttribute('data-state') === 'listening' && window.fakeSpeech.running, undefined, {
    timeout: PATIENCE_MS,
  });
}

/** One turn: the question said, timed to the first sample scheduled; then a fresh conversation. */
async function turn(page: Page, question: string): Promise<Turn> {
  await listening(page);
  const saidAt = await page.evaluate((text) => {
    const marks = (window as unknown as { turnMarks: Marks & { armed: boolean } }).turnMarks;
    Object.assign(marks, { armed: true, askedAt: null, doorAt: null, pieceAskedAt: null, firstSampleAt: null });
    const at = performance.now();
    window.fakeSpeech.final(text);
    return at;
  }, question);
  await page.waitForFunction(() => (window as unknown as { turnMarks: Marks }).turnMarks.firstSampleAt !== null, undefined, { timeout: PATIENCE_MS });
  const marks = await page.evaluate(() => {
    const all = (window as unknown as { turnMarks: Marks & { armed: boolean } }).turnMarks;
    all.armed = false;
    return { askedAt: all.askedAt, doorAt: all.doorAt, pieceAskedAt: all.pieceAskedAt, firstSampleAt: all.firstSampleAt };
  });
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('new-conversation').click();
  return {
    firstSampleMs: (marks.firstSampleAt ?? Number.NaN) - saidAt,
    askedMs: (marks.askedAt ?? Number.NaN) - saidAt,
    doorMs: (marks.doorAt ?? Number.NaN) - saidAt,
    pieceAskedMs: (marks.pieceAskedAt ?? Number.NaN) - saidAt,
  };
}

export async function run(): Promise<{ bench: 'turn'; runs: number; p50Ms: number; p95Ms: number; [figure: string]: unknown }> {
  const work = benchFolder('turn');
  try {
    const dist = join(work.path, 'dist');
    buildPage(dist, 'e2e');
    const shipped = (await loadBots(resolve(ROOT, 'bots'))).get('demo');
    if (shipped === undefined) throw new Error('bots/demo.md is missing: the turn benchmark speaks to Sage.');
    const { greeting: _greeting, ...sage } = shipped;
    const bot: Bot = { ...sage, limits: generous(shipped.limits) };
    const upstream = await startScriptedModel({ words: ANSWER.split(/(?<= )/), gapMs: TOKEN_GAP_MS, model: MODEL });
    const server = await startBenchServer({
      dist,
      bots: new Map([[bot.slug, bot]]),
      providers: [{ name: 'bench', baseUrl: upstream.baseUrl, model: MODEL, apiKey: 'bench-key' }],
      prices: { [MODEL]: { promptUsdPerMillion: 0.15, completionUsdPerMillion: 0.6 } },
      models: tinyVoice(join(work.path, 'models')),
    });
    const browser = await launchChromium(join(work.path, 'mic'));
    try {
      const page = await browser.newPage();
      await page.addInitScript(NAME_HELPER);
      await page.addInitScript(MARKS);
      await FakeSpeech.install(page, { refused: false });
      await page.goto(new URL('/voice/demo', server.url).href);
      await page.getByTestId('start-listening').click({ timeout: PATIENCE_MS });
      const turns: Turn[] = [];
      if (QUESTIONS.length < WARM_UP + RUNS) throw new Error(`The turn benchmark needs ${String(WARM_UP + RUNS)} questions and has ${String(QUESTIONS.length)}.`);
      for (const [i, question] of QUESTIONS.slice(0, WARM_UP + RUNS).entries()) {
        const timed = await turn(page, question);
        if (i >= WARM_UP) turns.push(timed);
      }
      const firstSample = spread(turns.map((t) => t.firstSampleMs));
      return {
        bench: 'turn',
        runs: firstSample.n,
        p50Ms: firstSample.p50,
        p95Ms: firstSample.p95,
        targetP50Ms: TARGET_P50_MS,
        firstSampleMs: firstSample,
        askedMsP50: spread(turns.map((t) => t.askedMs)).p50,
        doorMsP50: spread(turns.map((t) => t.doorMs)).p50,
        pieceAskedMsP50: spread(turns.map((t) => t.pieceAskedMs)).p50,
        model: { firstTokenMs: 0, tokenGapMs: TOKEN_GAP_MS, openingPiece: ANSWER.slice(0, ANSWER.indexOf('.') + 1) },
        voice: 'tiny stand-in graphs (test/helpers/tinySupertonic.ts), WASM',
      };
    } finally {
      await browser.close();
      await server.close();
      await upstream.close();
    }
  } finally {
    work.dispose();
  }
}
