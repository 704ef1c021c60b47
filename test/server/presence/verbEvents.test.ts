/**
 * Verbs that finish away from the conversation reach the person's pages as window events with what
 * the app says of them: a write made over MCP, and a write that landed after its turn was talked
 * over. A write said in its own turn, and any read, are not.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../server/backend';
import { parseBotFile } from '../../../server/bots';
import { personCookieKey, PERSON_COOKIE, signPersonCookie } from '../../../server/person';
import { createRegistry } from '../../../server/verbs/registry';
import type { Caller } from '../../../server/verbs/verb';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { BOT, pantry } from '../chat/actingDoor';
import { OPENING_MS } from '../db/fixtures';
import { Person } from './presenceClient';
import type { PageStream } from './presenceClient';

/** The person, as the local mode's cookie names one. */
const ANA = randomUUID();

describe('verbs that finish away from the conversation', { timeout: 60_000 }, () => {
  let backend: TestBackend;
  let api: Backend;
  let stream: PageStream;
  const caller = (via: Caller['via']): Caller => ({ person: ANA, bot: 'pantry-bot', via, timeZone: 'UTC' });
  let key = 0;
  const idempotencyKey = () => `test-key-${String(++key).padStart(8, '0')}`;

  beforeAll(async () => {
    backend = await openTestBackend({ bots: new Map([['pantry-bot', parseBotFile('pantry-bot.md', BOT)]]), registry: createRegistry([pantry]) });
    ({ api } = backend);
    const person = new Person(backend.app);
    person.cookie = `${PERSON_COOKIE}=${signPersonCookie(personCookieKey(backend.grantSecret), ANA, Date.now())}`;
    stream = await person.open({ page: 'page-verbs-1', device: 'device-verbs' }, { bot: 'pantry-bot' });
    await stream.next('hello');
  }, OPENING_MS);

  afterAll(async () => {
    stream.close();
    await backend.close();
  });

  it('says what an MCP client added, in the app’s words', async () => {
    const outcome = await api.executor.execute({ verb: 'pantry.add', input: { item: 'rice' }, caller: caller('mcp'), idempotencyKey: idempotencyKey() });
    expect(outcome.ok).toBe(true);
    const event = await stream.next('event', (m) => m.sequenced.event.kind === 'verb');
    expect(event.sequenced.event).toEqual({ kind: 'verb', verb: 'pantry.add', ok: true, sentence: "That's 1 thing in the pantry.", origin: 'elsewhere' });
  });

  it('says a write that landed after its turn was talked over, which its turn was told was cancelled', async () => {
    const talkedOver = new AbortController();
    const running = api.executor.execute({ verb: 'pantry.add', input: { item: 'flour', waitMs: 300 }, caller: caller('model'), idempotencyKey: idempotencyKey(), signal: talkedOver.signal });
    setTimeout(() => {
      talkedOver.abort();
    }, 50);
    const outcome = await running;
    expect(outcome.ok ? 'ok' : outcome.error.code).toBe('cancelled');
    const event = await stream.next('event', (m) => m.sequenced.event.kind === 'verb');
    expect(event.sequenced.event).toEqual({ kind: 'verb', verb: 'pantry.add', ok: true, sentence: "That's 2 things in the pantry.", origin: 'late' });
  });

  it('says nothing of a write said in its own turn, nor of a read', async () => {
    await api.executor.execute({ verb: 'pantry.add', input: { item: 'oats' }, caller: caller('model'), idempotencyKey: idempotencyKey() });
    await api.executor.execute({ verb: 'pantry.count', input: {}, caller: caller('mcp') });
    // A marker published after them arrives with nothing before it.
    const before = stream.messages.length;
    await api.presence.publish(ANA, 'pantry-bot', [{ kind: 'notice', text: 'Marker.' }]);
    await stream.next('event', (m) => m.sequenced.event.kind === 'notice');
    expect(stream.messages.slice(before).filter((m) => m.type === 'event' && m.sequenced.event.kind === 'verb')).toEqual([]);
  });
});
