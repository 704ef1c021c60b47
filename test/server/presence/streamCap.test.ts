/**
 * A person's presence streams are capped over every instance: past the cap a new page is refused in
 * a sentence, a page that closes frees its place, and a page that opens its stream again replaces the
 * one it left (without its closing being ruled: the page is still open).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { loadBots } from '../../../server/bots';
import { openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import type { PageRef } from '../../../common/presence/protocol';
import { openTestBackend, testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS, startSocketPostgres } from '../db/fixtures';
import type { SocketPostgres } from '../db/fixtures';
import { Person } from './presenceClient';
import type { PageStream } from './presenceClient';

let n = 0;
const pageOn = (device: string): PageRef => ({ page: `capped-${String(++n).padStart(6, '0')}`, device });

describe('presence streams per person', { timeout: DB_TEST_MS }, () => {
  let backend: TestBackend;
  let app: Hono;

  beforeAll(async () => {
    backend = await openTestBackend({ bots: await loadBots('bots'), presence: { streamsPerPerson: 3 } });
    ({ app } = backend);
  }, OPENING_MS);
  afterAll(async () => {
    await backend.close();
  });

  const streamOf = async (person: Person, page: PageRef): Promise<PageStream> => {
    const stream = await person.open(page);
    await stream.next('hello');
    return stream;
  };

  it('refuses a page past the cap in a sentence, and lets it in once another closes', async () => {
    const ana = new Person(app);
    await ana.start();
    const pages = [pageOn('laptop-1'), pageOn('laptop-1'), pageOn('phone-01')];
    const streams = await Promise.all(pages.map((page) => streamOf(ana, page)));
    const fourth = pageOn('phone-01');
    const refused = await ana.call(`/api/presence?bot=demo&page=${fourth.page}&device=${fourth.device}`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: requestRefusal('requests.too-many-pages') });
    // Somebody else's pages are their own.
    const bob = new Person(app);
    await bob.start();
    (await streamOf(bob, pageOn('desk-001'))).close();

    streams[0]?.close();
    // The closed stream's place is freed as its handler ends, a moment after the connection goes.
    const asking = async () => {
      const res = await ana.call(`/api/presence?bot=demo&page=${fourth.page}&device=${fourth.device}`);
      await res.body?.cancel();
      return res.status;
    };
    await expect.poll(asking, { timeout: 5_000 }).toBe(200);
    for (const stream of streams) stream.close();
  });

  it('lets a page open its stream again at the cap, ending the one it left, which stays the active page', async () => {
    const ana = new Person(app);
    await ana.start();
    const pages = [pageOn('laptop-1'), pageOn('laptop-1'), pageOn('laptop-1')];
    const streams = await Promise.all(pages.map((page) => streamOf(ana, page)));
    const first = pages[0] as PageRef;
    expect((await ana.claim(first)).active?.page).toBe(first.page);
    const again = await ana.open(first);
    const hello = await again.next('hello');
    expect(hello.seat.active?.page).toBe(first.page);
    // The old stream ends; its page is still the active one, on the new one.
    await expect(streams[0]?.next('hello')).rejects.toThrow(/closed/);
    const other = await ana.open(pages[1] as PageRef);
    const seen = await other.next('hello');
    expect(seen.seat.active?.page).toBe(first.page);
    again.close();
    other.close();
    for (const stream of streams) stream.close();
  });
});

describe('presence streams per person, over two instances', { timeout: DB_TEST_MS }, () => {
  let postgres: SocketPostgres;
  let dbs: Database[];
  let backends: TestBackend[];

  beforeAll(async () => {
    postgres = await startSocketPostgres();
    dbs = await Promise.all([openDatabase({ url: postgres.url }), openDatabase({ url: postgres.url })]);
    const bots = await loadBots('bots');
    const grantSecret = randomBytes(32);
    backends = dbs.map((db) => testBackend(db, { bots, grantSecret, presence: { streamsPerPerson: 3 } }));
  }, OPENING_MS);
  afterAll(async () => {
    await Promise.all(backends.map((backend) => backend.close()));
    await Promise.all(dbs.map((db) => db.close()));
    await postgres.stop();
  });

  it('counts a person’s streams on both together: the cap holds in total, and a page closing on one lets a page in on the other', async () => {
    const [one, two] = backends.map((backend) => backend.app) as [Hono, Hono];
    const onOne = new Person(one);
    await onOne.start();
    const onTwo = onOne.on(two);
    const first = await onOne.open(pageOn('laptop-1'));
    await first.next('hello');
    const others = await Promise.all([onTwo.open(pageOn('phone-01')), onOne.open(pageOn('laptop-1'))]);
    await Promise.all(others.map((stream) => stream.next('hello')));
    const fourth = pageOn('phone-01');
    const asking = async (person: Person) => {
      const res = await person.call(`/api/presence?bot=demo&page=${fourth.page}&device=${fourth.device}`);
      await res.body?.cancel();
      return res.status;
    };
    expect(await asking(onTwo)).toBe(429);
    expect(await asking(onOne)).toBe(429);
    first.close();
    await expect.poll(() => asking(onTwo), { timeout: 5_000 }).toBe(200);
    for (const stream of others) stream.close();
  });
});
