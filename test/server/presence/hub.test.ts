/**
 * The hub's notifications: whatever a fan-out carries, the payload fits in what Postgres takes
 * (8,000 bytes), a live state too large for it is kept on the seat and read by the instance that
 * hears it, and what is heard is delivered in the order heard, though reading it takes time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, ListenHandlers } from '../../../server/db/database';
import { keepLive, notify } from '../../../server/db/presence';
import { notificationOf, PRESENCE_CHANNEL, PresenceHub } from '../../../server/presence/hub';
import type { Fanout, PresenceStream } from '../../../server/presence/hub';
import type { LiveState, Sequenced } from '../../../common/presence/protocol';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';
import { openTestDatabase } from '../../helpers/testDatabase';

const NOTIFY_BYTES_MAX = 8_000;
const person = 'hub-person';
const bot = 'demo';
const page = 'page-hub-0001';
const answer = '語'.repeat(6_300);
const writing: LiveState = { conversation: 'conv-hub', liveLine: '', phase: 'speaking', draft: { utteranceId: 2, text: answer } };
const listening: LiveState = { conversation: 'conv-hub', liveLine: 'And then?', phase: 'listening', draft: null };
const longLine: Sequenced = { seq: 7, atMs: 0, event: { kind: 'line', conversation: 'conv-hub', line: { role: 'assistant', text: answer, utteranceId: 1 } } };

describe('a notification whatever the fan-out carries', () => {
  it('carries a small fan-out whole', () => {
    const fanout: Fanout = { from: 'one', person, bot, events: [{ ...longLine, event: { kind: 'notice', text: 'Tea.' } }], live: { from: page, live: listening } };
    expect(notificationOf(fanout)).toEqual({ payload: JSON.stringify(fanout), keep: null });
  });

  it('names long events by the seq they start from, and a long live state by a stamp to keep on the seat', () => {
    const fanout: Fanout = { from: 'one', person, bot, events: [longLine], live: { from: page, live: writing } };
    const { payload, keep } = notificationOf(fanout, () => 'stamp-1');
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(NOTIFY_BYTES_MAX);
    expect(JSON.parse(payload)).toEqual({ from: 'one', person, bot, eventsFrom: 7, liveKept: { from: page, stamp: 'stamp-1' } });
    expect(keep).toEqual({ stamp: 'stamp-1', live: { from: page, live: writing } });
  });

  it('keeps the live state carried when only the events were too long', () => {
    const { payload, keep } = notificationOf({ from: 'one', person, bot, events: [longLine], live: { from: page, live: listening } });
    expect(JSON.parse(payload)).toEqual({ from: 'one', person, bot, eventsFrom: 7, live: { from: page, live: listening } });
    expect(keep).toBeNull();
  });
});

describe('a hub hearing a live state kept on the seat', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
    await db.asServer((tx) => tx.query("insert into presence_seats (person, bot, term, active_page, active_device) values ($1, $2, 1, $3, 'device-hub-01')", [person, bot, page]));
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  it('reads it from the seat and delivers it, holding back what was heard after it until it is read', async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let heard = 0;
    const listen = db.listen;
    if (listen === undefined) throw new Error('PGlite listens in process');
    // The listening instance's reads wait for the test, as a busy database would make them.
    const slow: Database = {
      ...db,
      asPerson: (who, fn) => gate.then(() => db.asPerson(who, fn)),
      listen: (channel: string, handlers: ListenHandlers) =>
        listen(channel, {
          ...handlers,
          payload: (payload) => {
            heard += 1;
            handlers.payload(payload);
          },
        }),
    };
    const hub = new PresenceHub(slow, 'listener');
    await hub.start();
    const delivered: Fanout[] = [];
    hub.attach({ person, bot, deliver: (fanout: Fanout) => delivered.push(fanout), close: () => undefined } as unknown as PresenceStream);

    const big = notificationOf({ from: 'other', person, bot, live: { from: page, live: writing } });
    expect(big.keep).not.toBeNull();
    await db.asPerson(person, async (tx) => {
      if (big.keep !== null) expect(await keepLive(tx, person, bot, page, big.keep.stamp, big.keep.live.live)).toBe(true);
      await notify(tx, PRESENCE_CHANNEL, big.payload);
    });
    await db.asPerson(person, (tx) => notify(tx, PRESENCE_CHANNEL, notificationOf({ from: 'other', person, bot, live: { from: page, live: listening } }).payload));
    await expect.poll(() => heard, { timeout: 5_000 }).toBe(2);
    expect(delivered).toEqual([]);
    open();
    await expect.poll(() => delivered.length, { timeout: 5_000 }).toBe(2);
    expect(delivered.map((f) => f.live)).toEqual([
      { from: page, live: writing },
      { from: page, live: listening },
    ]);
    await hub.close();
  });

  it('keeps a live state only for the active page', async () => {
    expect(await db.asPerson(person, (tx) => keepLive(tx, person, bot, 'page-not-active', 'stamp-2', writing))).toBe(false);
  });
});
