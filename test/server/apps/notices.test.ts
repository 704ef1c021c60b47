import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { RefusedError } from '../../../server/db/errors';
import { cancelNotices, scheduleNotice } from '../../../server/db/notices';
import { NOTICES_AHEAD_MS, noticeRoutes } from '../../../server/notices';
import type { PersonEnv } from '../../../server/person';
import type { Notice } from '../../../common/acting/protocol';
import { TUESDAY_MS } from '../../helpers/verbContext';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

const MINUTE_MS = 60_000;

describe('notice routes', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let api: Hono<PersonEnv>;
  beforeAll(async () => {
    db = await openMemoryDatabase();
    const bots = await loadBots('bots');
    // As the server mounts them: the person set by the session before, errors as `{ error }`.
    api = new Hono<PersonEnv>();
    api.use(async (c, next) => {
      c.set('person', c.req.header('x-person') ?? '');
      await next();
    });
    api.route('/api', noticeRoutes({ db, bots, clock: () => TUESDAY_MS }));
    api.onError((error, c) => (error instanceof HTTPException ? c.json({ error: error.message }, error.status) : c.json({ error: 'failed' }, 500)));
  }, OPENING_MS);
  afterAll(() => db.close());

  const schedule = (person: string, text: string, dueAtMs: number, bot = 'demo') =>
    db.asPerson(person, (tx) => scheduleNotice(tx, { person, bot, app: 'reminders', text, dueAtMs }));
  const due = async (person: string, bot = 'demo') => {
    const response = await api.request(`/api/notices?bot=${bot}`, { headers: { 'x-person': person } });
    return { status: response.status, body: (await response.json()) as { notices: Notice[] } };
  };
  const deliver = async (person: string, id: string) => {
    const response = await api.request(`/api/notices/${id}/delivered`, { method: 'POST', headers: { 'x-person': person } });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it('lists the notices overdue or due within a day, oldest first, and none later, said, for another bot or another person', async () => {
    const ana = somebody();
    const overdue = await schedule(ana, 'Reminder: overdue.', TUESDAY_MS - 5 * MINUTE_MS);
    const soon = await schedule(ana, 'Reminder: soon.', TUESDAY_MS + 10 * MINUTE_MS);
    const lastMinute = await schedule(ana, 'Reminder: at the edge.', TUESDAY_MS + NOTICES_AHEAD_MS);
    await schedule(ana, 'Reminder: later.', TUESDAY_MS + NOTICES_AHEAD_MS + MINUTE_MS);
    await schedule(ana, 'Reminder: for the coach.', TUESDAY_MS, 'coach');
    await schedule(somebody(), "Reminder: bob's.", TUESDAY_MS);
    const said = await schedule(ana, 'Reminder: said already.', TUESDAY_MS - MINUTE_MS);
    expect((await deliver(ana, said.id)).status).toBe(200);
    expect(await due(ana)).toEqual({
      status: 200,
      body: {
        notices: [
          { id: overdue.id, text: 'Reminder: overdue.', dueAtMs: TUESDAY_MS - 5 * MINUTE_MS },
          { id: soon.id, text: 'Reminder: soon.', dueAtMs: TUESDAY_MS + 10 * MINUTE_MS },
          { id: lastMinute.id, text: 'Reminder: at the edge.', dueAtMs: TUESDAY_MS + NOTICES_AHEAD_MS },
        ],
      },
    });
  });

  it('answers 404 for a bot that does not exist', async () => {
    const response = await api.request('/api/notices?bot=nobody', { headers: { 'x-person': somebody() } });
    expect(response.status).toBe(404);
  });

  it('marks a notice delivered once: 200 with the notice the first time, 409 with a sentence after', async () => {
    const ana = somebody();
    const notice = await schedule(ana, 'Reminder: take the tea out.', TUESDAY_MS);
    expect(await deliver(ana, notice.id)).toEqual({ status: 200, body: { notice: { id: notice.id, text: 'Reminder: take the tea out.', dueAtMs: TUESDAY_MS } } });
    expect(await deliver(ana, notice.id)).toEqual({ status: 409, body: { error: requestRefusal('requests.already-said') } });
    expect((await due(ana)).body.notices).toEqual([]);
  });

  it('lets exactly one of two pages marking the same notice at once say it', async () => {
    const ana = somebody();
    const notice = await schedule(ana, 'Reminder: once.', TUESDAY_MS);
    const statuses = (await Promise.all([deliver(ana, notice.id), deliver(ana, notice.id)])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 409]);
  });

  it("answers 404 for another person's notice, a cancelled one and an id that is not one, and leaves it unsaid", async () => {
    const ana = somebody();
    const notice = await schedule(ana, 'Reminder: mine.', TUESDAY_MS);
    expect(await deliver(somebody(), notice.id)).toEqual({ status: 404, body: { error: 'There is no such notice of yours.' } });
    expect(await deliver(ana, 'not-a-uuid')).toMatchObject({ status: 404 });
    const cancelled = await schedule(ana, 'Reminder: cancelled.', TUESDAY_MS);
    expect(await db.asPerson(ana, (tx) => cancelNotices(tx, [cancelled.id]))).toBe(1);
    expect(await deliver(ana, cancelled.id)).toMatchObject({ status: 404 });
    expect((await due(ana)).body.notices.map((n) => n.id)).toEqual([notice.id]);
  });

  it("refuses to schedule a notice in another person's name", async () => {
    const ana = somebody();
    await expect(db.asPerson(ana, (tx) => scheduleNotice(tx, { person: somebody(), bot: 'demo', app: 'reminders', text: 'x', dueAtMs: TUESDAY_MS }))).rejects.toThrow(RefusedError);
  });
});
