/**
 * A run's model calls spend under the person's and the site's ceilings: each is reserved before it
 * is asked and settled with what it cost once it answered; a call the ceilings refuse stops the run,
 * saying the ceiling's sentence, and asks no model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lists from '../../../server/apps/lists/index';
import { parseBotFile } from '../../../server/bots';
import type { SpendLedger } from '../../../server/chat/admission';
import type { AnswerSpend } from '../../../server/chat/doorTypes';
import type { Database } from '../../../server/db/database';
import type { RunModel } from '../../../server/runs/runModel';
import { runService } from '../../../server/runs/runService';
import { createRegistry } from '../../../server/verbs/registry';
import { shippedWords } from '../../../server/words/loadWords';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';
import { ended, executorOver, start } from './runFixtures';

const BOT = parseBotFile('buddy.md', `---\nname: Buddy\napps: [lists]\nlimits: { spend: 0.02, perDay: { spend: 1 } }\n---\nYou help.`);
const REFUSAL = "You've reached today's spending limit with Buddy; it resets at midnight.";

describe('a run’s model calls under the ceilings', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  function serviceWith(ledger: SpendLedger, model: RunModel) {
    return runService({
      db,
      executor: executorOver(db),
      registry: createRegistry([lists]),
      bots: new Map([['buddy', BOT]]),
      scripted: false,
      model,
      ledger,
      wordsForBot: () => shippedWords().wordsIn('en'),
      publish: () => Promise.resolve(),
      owner: 'ceilings-test',
      clock: Date.now,
      pollMs: 20,
      scriptedStepMs: 0,
    });
  }

  it('reserves each call before it is asked and settles it with what it cost', async () => {
    const reserved: number[] = [];
    const settled: AnswerSpend[] = [];
    const ledger: SpendLedger = {
      reserveSpend: (ask) => {
        reserved.push(ask.spendHoldUsd);
        return Promise.resolve({ ok: true, reservation: `r-${String(reserved.length)}` });
      },
      settle: (_reservation, spend) => {
        settled.push(spend);
        return Promise.resolve();
      },
    };
    const model: RunModel = { reply: () => Promise.resolve({ model: 'gpt-4o-mini', provider: 'openai', text: 'All done.', toolCalls: [], spentUsd: 0.004, usage: { promptTokens: 100, completionTokens: 20 } }) };
    const service = serviceWith(ledger, model);
    const id = await start(db, somebody(), 'tidy up', { scripted: false, maxSpendUsd: 0.2 });
    service.start();
    const run = await ended(db, id);
    await service.stop();
    expect(run).toMatchObject({ state: 'finished', answer: 'All done.' });
    // Held at most the bot's per-answer spend, and settled with the call's cost, by who answered.
    expect(reserved).toEqual([0.02]);
    expect(settled).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-4o-mini', costUsd: 0.004, promptTokens: 100, completionTokens: 20, ended: 'stop' })]);
  });

  it('stops the run with the ceiling’s sentence when the ceilings refuse, asking no model', async () => {
    let asked = 0;
    const ledger: SpendLedger = {
      reserveSpend: () => Promise.resolve({ ok: false, sentence: REFUSAL, by: 'person' }),
      settle: () => Promise.reject(new Error('Nothing was reserved.')),
    };
    const model: RunModel = {
      reply: () => {
        asked += 1;
        return Promise.resolve({ model: 'gpt-4o-mini', text: 'Never.', toolCalls: [], spentUsd: 0 });
      },
    };
    const service = serviceWith(ledger, model);
    const id = await start(db, somebody(), 'tidy up', { scripted: false });
    service.start();
    const run = await ended(db, id);
    await service.stop();
    expect(run).toMatchObject({ state: 'out_of_budget', answer: REFUSAL });
    expect(asked).toBe(0);
  });
});
