/**
 * What it has cost (`GET /api/me/usage`), against answers recorded through the ledger the door uses:
 * today's and this month's on the person's own calendar, each of the bot's windows as full as the
 * ledger counts it, and when a full one frees up — the moment the ledger itself then refuses until.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Usage } from '../../../common/people';
import { parseBotFile } from '../../../server/bots';
import type { Bot } from '../../../server/bots';
import type { AnswerSpend } from '../../../server/chat/doorTypes';
import { grantClaims } from '../../../server/grants';
import { databaseLedger } from '../../../server/ledger';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../../server/person';
import { openTestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';

const bot = (slug: string, name: string, limits: string) => parseBotFile(`${slug}.md`, `---\nname: ${name}\nlimits: ${limits}\n---\nYou help.`);
const BOTS = new Map<string, Bot>([
  ['sage', bot('sage', 'Sage', '{ spend: 0.02, perMinute: { answers: 3 }, perDay: { spend: 0.10 }, perMonth: { spend: 1 } }')],
  ['other', bot('other', 'Another', '{ spend: 0.05, perDay: { spend: 1 } }')],
]);
const ZONE = 'America/New_York';
/** 2026-03-10, 12:00 in New York (EDT, UTC−4). */
const NOW = Date.UTC(2026, 2, 10, 16);
const at = (iso: string) => Date.parse(iso);

describe('what it has cost', { timeout: DB_TEST_MS }, () => {
  let backend: TestBackend;
  let cookie = '';
  let person = '';

  beforeAll(async () => {
    backend = await openTestBackend({ bots: BOTS, clock: () => NOW });
    const first = await backend.request(`/api/me/usage?zone=${ZONE}`);
    expect(await first.json()).toEqual({ bots: [] });
    cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    person = readPersonCookie(personCookieKey(backend.grantSecret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';

    // Answers through the ledger, as the door records them: admitted, then settled with their cost.
    const ledger = databaseLedger(backend.db);
    const answer = async (slug: string, atMs: number, costUsd: number | null) => {
      const known = BOTS.get(slug);
      if (known === undefined) throw new Error(slug);
      const reserved = await ledger.reserve({ grant: grantClaims(known, person, 'cookie', atMs), nowMs: atMs });
      if (!reserved.ok) throw new Error(reserved.sentence);
      if (costUsd === null) return;
      const spend: AnswerSpend = { provider: 'openai', model: 'm', promptTokens: 10, completionTokens: 10, ended: 'stop', estimated: false, costUsd, priced: true, nowMs: atMs + 1_000 };
      await ledger.settle(reserved.reservation, spend);
    };
    await answer('sage', at('2026-02-28T15:00:00Z'), 0.05);
    // 23:30 on the 9th in New York: yesterday there, though today in UTC.
    await answer('sage', at('2026-03-10T03:30:00Z'), 0.01);
    await answer('sage', at('2026-03-10T05:00:00Z'), 0.03);
    for (const secondsAgo of [50, 40, 30]) await answer('sage', NOW - secondsAgo * 1000, 0.02);
    // Still answering: its hold counts in its windows, not yet in what it spent.
    await answer('other', NOW - 5_000, null);
  }, OPENING_MS);
  afterAll(async () => {
    await backend.close();
  });

  const usage = async (zone = ZONE) => {
    const res = await backend.request(`/api/me/usage?zone=${encodeURIComponent(zone)}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    return (await res.json()) as Usage;
  };

  it('says each bot’s answers and spend today and this month on the person’s calendar, and each window as the ledger counts it', async () => {
    expect(await usage()).toEqual({
      bots: [
        {
          bot: 'other',
          name: 'Another',
          today: { answers: 1, spent: 0 },
          thisMonth: { answers: 1, spent: 0 },
          windows: [{ window: 'perDay', answers: 1, answersLimit: null, spent: 0.05, spendLimit: 1, freesAt: null }],
        },
        {
          bot: 'sage',
          name: 'Sage',
          today: { answers: 4, spent: 0.09 },
          thisMonth: { answers: 5, spent: 0.1 },
          windows: [
            { window: 'perMinute', answers: 3, answersLimit: 3, spent: 0.06, spendLimit: null, freesAt: NOW - 50_000 + 60_000 },
            // Full: one more answer (holding $0.02) fits once the $0.01 and the $0.03 of the morning have left it.
            { window: 'perDay', answers: 5, answersLimit: null, spent: 0.1, spendLimit: 0.1, freesAt: at('2026-03-11T05:00:00Z') },
            { window: 'perMonth', answers: 6, answersLimit: null, spent: 0.15, spendLimit: 1, freesAt: null },
          ],
        },
      ],
    });
  });

  it('frees up when the ledger next admits an answer', async () => {
    const sage = (await usage()).bots.find((used) => used.bot === 'sage');
    const frees = Math.max(...(sage?.windows.map((window) => window.freesAt ?? 0) ?? []));
    const ledger = databaseLedger(backend.db);
    const known = BOTS.get('sage');
    if (known === undefined) throw new Error('sage');
    const refused = await ledger.reserve({ grant: grantClaims(known, person, 'cookie', NOW), nowMs: NOW });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? null : refused.ceiling?.freesAtMs).toBe(frees);
  });

  it('counts the day in the zone asked about', async () => {
    const sage = (await usage('UTC')).bots.find((used) => used.bot === 'sage');
    expect(sage?.today).toEqual({ answers: 5, spent: 0.1 });
  });

  it('refuses a zone that is no IANA zone, with a sentence', async () => {
    const res = await backend.request('/api/me/usage?zone=Mars%2FOlympus', { headers: { cookie } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: requestRefusal('yours.zone') });
  });
});
