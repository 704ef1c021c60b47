/**
 * A bot whose per-answer spend hold is bigger than the background share of the site's ceiling:
 * background work for it can never fit there, so the gate refuses it with the background sentence
 * (and `by: 'background'`), as it refuses any other — never an error from deep in the ledger. A
 * person asking that bot now is still answered: the share is only for work nobody is waiting for.
 * Driven through the whole API: a run's model step by the server's own worker, a turn at the door.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lists from '../../server/apps/lists/index';
import { parseBotFile } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { databaseLedger } from '../../server/ledger';
import { createGate } from '../../server/gate';
import { verifyGrant } from '../../server/grants';
import { startRun } from '../../server/runs/runsApi';
import { createRegistry } from '../../server/verbs/registry';
import { shippedWords } from '../../server/words/loadWords';
import { say } from '../../server/words/words';
import { testBackend } from '../helpers/testBackend';
import { answering, startUpstream } from './chat/localServers';
import type { Upstream } from './chat/localServers';
import { OPENING_MS, openMemoryDatabase } from './db/fixtures';
import { Person } from './presence/presenceClient';
import { ended } from './runs/runFixtures';

/** Holds 5 cents for each answer; the site may spend 6 cents a day, half of it in the background: 3 cents. */
const COSTLY = parseBotFile('costly.md', `---\nname: Costly\nmemory: none\napps: [lists]\nlimits: { steps: 4, spend: 0.05, perMinute: { answers: 1000 }, perDay: { spend: 1 } }\n---\nYou help.`);
const SITE = { perDay: { spend: 0.06 } };
const BACKGROUND_NONE = say(shippedWords().wordsIn('en'), 'ceilings.background-none');

describe('a spend hold bigger than the background share', { timeout: 60_000 }, () => {
  let db: Database;
  let upstream: Upstream;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    upstream = await startUpstream(answering(['Noted.'], { usage: [10, 2] }));
  }, OPENING_MS);
  afterAll(async () => {
    await upstream.close();
    await db.close();
  });

  it('refuses a run’s step with the background sentence, asks no model for it, and still answers the person asking now', async () => {
    const api = testBackend(db, {
      bots: new Map([['costly', COSTLY]]),
      registry: createRegistry([lists]),
      providers: [{ name: 'scripted', baseUrl: upstream.baseUrl, model: 'm', apiKey: 'test-key' }],
      prices: { m: { promptUsdPerMillion: 1, completionUsdPerMillion: 1 } },
      live: true,
      siteLimits: SITE,
      backgroundShare: 0.5,
      runs: { scriptedStepMs: 0, pollMs: 20 },
      grantSecret: randomBytes(32),
    });
    const person = new Person(api.app);
    const grant = await person.start('costly');
    const id = verifyGrant(api.grantSecret, grant, { nowMs: Date.now() }).person;

    const runId = await startRun(db, { person: id, bot: 'costly', conversationKey: `conv-${id}`, asked: 'tidy my lists', scripted: false, verbs: lists.verbs, maxSteps: 8, maxSpendUsd: 0.1, maxMinutes: 5 }, Date.now());
    if (runId === undefined) throw new Error('No run was started.');
    await api.api.runs.worker.poke();
    const run = await ended(db, runId);
    await api.api.runs.stop();
    expect(run).toMatchObject({ state: 'out_of_budget', answer: BACKGROUND_NONE });
    expect(upstream.received).toHaveLength(0);

    const res = await person.call('/v1/chat/completions', { body: { stream: true, messages: [{ role: 'user', content: 'Hello?' }] }, headers: { authorization: `Bearer ${grant}` } });
    expect(res.headers.get('x-confab-refused')).toBeNull();
    expect(await res.text()).toContain('Noted.');
    expect(upstream.received).toHaveLength(1);
    await api.close();
  });

  it('says so for every background kind through the gate itself, by the background, leaving nothing reserved', async () => {
    const gate = createGate({ ledger: databaseLedger(db, { site: SITE }), live: true, site: SITE, backgroundShare: 0.5, limitsOf: () => COSTLY.limits, clock: Date.now });
    const person = `bea-${randomBytes(4).toString('hex')}`;
    const ask = { person, bot: 'costly', limits: COSTLY.limits, spendHoldUsd: COSTLY.limits.spend, spendHoldMs: 60_000, siteKeys: true, nowMs: Date.now() };
    expect(await gate.admit({ ...ask, kind: 'runStep' })).toMatchObject({ ok: false, by: 'background', sentence: BACKGROUND_NONE });
    expect(await gate.admit({ ...ask, kind: 'outsideCall', byRun: true, app: { name: 'shop' } })).toMatchObject({ ok: false, by: 'background' });
    const { rows } = await db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from reservations where person = $1', [person]));
    expect(rows[0]?.n).toBe(0);
    // The same hold for a person's own turn fits the site's windows: admitted.
    const turn = await gate.admit({ ...ask, kind: 'turn' });
    expect(turn.ok).toBe(true);
  });
});
