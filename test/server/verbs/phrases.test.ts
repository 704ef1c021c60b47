/**
 * `GET /api/bots/<bot>/phrases`: the words a person uses with the apps — their lists' names, the
 * one added to last first — for the page's recogniser to expect; another person's never.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lists from '../../../server/apps/lists/index';
import { parseBotFile } from '../../../server/bots';
import { createRegistry } from '../../../server/verbs/registry';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { callVerb } from '../../helpers/verbContext';

const BOT = parseBotFile('demo.md', '---\nname: Sage\napps: [lists]\n---\nYou help.');
const JSON_TYPE = { 'content-type': 'application/json' };

describe('the phrases a person’s recogniser is to expect', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await openTestBackend({ bots: new Map([['demo', BOT]]), registry: createRegistry([lists]) });
  });
  afterAll(async () => {
    await backend.close();
  });

  /** A new person: their cookie, as the page holds it. */
  async function person(): Promise<{ cookie: string; id: string }> {
    const started = await backend.request('/api/start', { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ bot: 'demo' }) });
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { grant } = (await started.json()) as { grant: string };
    const claims = JSON.parse(Buffer.from(grant.split('.')[0] ?? '', 'base64url').toString('utf8')) as { person: string };
    return { cookie, id: claims.person };
  }
  const phrases = async (cookie: string, bot = 'demo') => backend.request(`/api/bots/${bot}/phrases`, { headers: { cookie } });

  it('are the person’s list names, the one added to last first, and nobody else’s', async () => {
    const ana = await person();
    const ben = await person();
    expect(await (await phrases(ana.cookie)).json()).toEqual({ phrases: [] });
    await callVerb(backend.db, lists, 'lists.add', { list: 'groceries', items: ['milk'] }, { person: ana.id });
    await callVerb(backend.db, lists, 'lists.add', { list: 'camping gear', items: ['tent'] }, { person: ana.id });
    await callVerb(backend.db, lists, 'lists.add', { list: 'birthday', items: ['cake'] }, { person: ben.id });
    expect(await (await phrases(ana.cookie)).json()).toEqual({ phrases: ['camping gear', 'groceries'] });
    expect(await (await phrases(ben.cookie)).json()).toEqual({ phrases: ['birthday'] });
  });

  it('are asked for a bot that is here, by the person, from this page only', async () => {
    const ana = await person();
    expect((await phrases(ana.cookie, 'nobody')).status).toBe(404);
    expect((await backend.request('/api/bots/demo/phrases', { headers: { cookie: ana.cookie, origin: 'http://elsewhere.example' } })).status).toBe(403);
  });
});
