/**
 * Choices to tap on the server: an answer ending in a `- ` list is kept as its words with the choices
 * apart (and every page of the person's is told), a press is taken once — two at once, one gets
 * through and the other is told it is gone — with the offer's own words, never the page's.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WindowEvent } from '../../common/presence/protocol';
import { loadBots } from '../../server/bots';
import { conversationRoutes } from '../../server/conversations';
import type { Database } from '../../server/db/database';
import type { PersonEnv } from '../../server/person';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './db/fixtures';

const OFFER = 'Which copy is it?\n\n- The paperback\n- The hardcover';

interface SavedLine {
  id: string;
  who: string;
  text: string;
  clientId: string;
  choices: { question: string; items: string[] } | null;
  taken: number | null;
}

describe('choices', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let api: Hono<PersonEnv>;
  const told: { person: string; bot: string; events: readonly WindowEvent[] }[] = [];

  beforeAll(async () => {
    db = await openMemoryDatabase();
    const bots = await loadBots('bots');
    api = new Hono<PersonEnv>();
    api.use(async (c, next) => {
      c.set('person', c.req.header('x-person') ?? '');
      await next();
    });
    api.route('/api', conversationRoutes({ db, bots, publish: (person, bot, events) => Promise.resolve(told.push({ person, bot, events })) }));
    api.onError((error, c) => (error instanceof HTTPException ? c.json({ error: error.message }, error.status) : c.json({ error: 'failed' }, 500)));
  }, OPENING_MS);
  afterAll(() => db.close());

  const call = async (person: string, path: string, body?: unknown) => {
    const response = await api.request(`/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-person': person, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const thread = async (person: string) => (await call(person, '/threads', { bot: 'demo' })).body.id as string;
  const keep = async (person: string, threadId: string, line: { who: string; text: string; clientId: string; interrupted?: boolean }) =>
    (await call(person, `/threads/${threadId}/lines`, line)).body as unknown as SavedLine;
  const lines = async (person: string, threadId: string) => (await call(person, `/threads/${threadId}/lines`)).body.lines as SavedLine[];

  it('keeps an answer ending in a list under words as its words, the choices apart, and tells the person’s pages', async () => {
    const ana = somebody();
    const threadId = await thread(ana);
    const kept = await keep(ana, threadId, { who: 'assistant', text: OFFER, clientId: 'k:1:assistant' });
    expect(kept).toMatchObject({ text: 'Which copy is it?', choices: { question: 'Which copy is it?', items: ['The paperback', 'The hardcover'] }, taken: null });
    expect(told.at(-1)).toEqual({
      person: ana,
      bot: 'demo',
      events: [{ kind: 'offer', threadId, clientId: 'k:1:assistant', text: 'Which copy is it?', offer: { id: kept.id, question: 'Which copy is it?', items: ['The paperback', 'The hardcover'], taken: null } }],
    });
    // Saved again (a retry), it is the line already kept.
    expect((await keep(ana, threadId, { who: 'assistant', text: OFFER, clientId: 'k:1:assistant' })).id).toBe(kept.id);
    expect(await lines(ana, threadId)).toMatchObject([{ text: 'Which copy is it?', choices: { items: ['The paperback', 'The hardcover'] }, taken: null }]);
  });

  it('keeps the person’s words, a talked-over answer and a list with nothing above it as they were said', async () => {
    const ana = somebody();
    const threadId = await thread(ana);
    const before = told.length;
    await keep(ana, threadId, { who: 'person', text: OFFER, clientId: 'k:1:user' });
    await keep(ana, threadId, { who: 'assistant', text: OFFER, clientId: 'k:1:assistant', interrupted: true });
    await keep(ana, threadId, { who: 'assistant', text: '- a\n- b', clientId: 'k:2:assistant' });
    expect((await lines(ana, threadId)).map((l) => [l.text, l.choices])).toEqual([[OFFER, null], [OFFER, null], ['- a\n- b', null]]);
    expect(told.length).toBe(before);
  });

  it('takes a choice once, with the offer’s words, and tells the person’s pages; a second press is told it is gone', async () => {
    const ana = somebody();
    const threadId = await thread(ana);
    const { id } = await keep(ana, threadId, { who: 'assistant', text: OFFER, clientId: 'k:1:assistant' });
    const pressed = await call(ana, '/choices', { offer: id, choice: 1, words: 'Delete everything' });
    expect(pressed).toEqual({ status: 200, body: { words: 'The hardcover', taken: 1 } });
    expect(told.at(-1)).toEqual({ person: ana, bot: 'demo', events: [{ kind: 'choice', offer: id, taken: 1 }] });
    const again = await call(ana, '/choices', { offer: id, choice: 0, via: 'voice' });
    expect(again).toEqual({ status: 409, body: { error: 'That choice has gone: another of your pages took one first.', taken: 1 } });
    expect((await lines(ana, threadId))[0]?.taken).toBe(1);
    const rows = await db.asServer((tx) => tx.query<{ person: string; choice: number; via: string }>('select person, choice, via from choices where line_id = $1', [id]));
    expect(rows.rows).toEqual([{ person: ana, choice: 1, via: 'press' }]);
  });

  it('lets exactly one of two presses at once through', async () => {
    const ana = somebody();
    const threadId = await thread(ana);
    const { id } = await keep(ana, threadId, { who: 'assistant', text: OFFER, clientId: 'k:1:assistant' });
    const both = await Promise.all([call(ana, '/choices', { offer: id, choice: 0 }), call(ana, '/choices', { offer: id, choice: 1 })]);
    expect(both.map((one) => one.status).sort()).toEqual([200, 409]);
    const through = both.find((one) => one.status === 200);
    expect(both.find((one) => one.status === 409)?.body.taken).toBe(through?.body.taken);
  });

  it('answers 404 for an offer that is not the person’s, a choice it does not have, or a line that offers none', async () => {
    const ana = somebody();
    const threadId = await thread(ana);
    const { id } = await keep(ana, threadId, { who: 'assistant', text: OFFER, clientId: 'k:1:assistant' });
    const plain = await keep(ana, threadId, { who: 'assistant', text: 'No list here.', clientId: 'k:2:assistant' });
    expect((await call(somebody(), '/choices', { offer: id, choice: 0 })).status).toBe(404);
    expect((await call(ana, '/choices', { offer: id, choice: 2 })).status).toBe(404);
    expect((await call(ana, '/choices', { offer: plain.id, choice: 0 })).status).toBe(404);
    expect((await call(ana, '/choices', { offer: 'not-a-line', choice: 0 })).status).toBe(404);
    expect((await call(ana, '/choices', { offer: id, choice: -1 })).status).toBe(400);
    expect((await call(ana, '/choices', { offer: id, choice: 0 })).status).toBe(200);
  });
});
