/**
 * The door's tool loop, end to end over HTTP: a scripted provider streams tool calls with the
 * quirks providers have, the one executor runs them against a real database, and the page's side
 * reads text and the door's own events.
 */
import { SCOPE_MAX } from '../../../server/verbs/scope';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { say } from '../../../server/words/words';
import { english } from '../../helpers/words';
import type { Reply, Received } from './localServers';
import { z } from 'zod';
import { parseBotFile } from '../../../server/bots';
import type { Queryable } from '../../../server/db/queryable';
import { createRegistry } from '../../../server/verbs/registry';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import { BOT, pantry, Person, pantryItems, seen, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';
import { openTestDatabase } from '../../helpers/testDatabase';

type Sent = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };

const messagesOf = (received: Received) => received.body.messages as Sent[];
const toolAnswers = (received: Received) => messagesOf(received).filter((m) => m.role === 'tool');

/** A provider that calls `calls` on its first request, then answers `after` once it has the results. */
function callsThenSays(calls: (reply: Reply) => void, after = 'All done.') {
  return (reply: Reply, received: Received) => {
    if (toolAnswers(received).length === 0) {
      calls(reply);
      reply.finish('tool_calls');
    } else {
      reply.token(after);
      reply.finish();
    }
    reply.done();
  };
}

describe('the door runs verbs the model calls', () => {
  let door: ActingDoor;
  let person: Person;
  let grant: string;

  beforeAll(async () => {
    door = await startActingDoor();
  });
  afterAll(async () => {
    await door.close();
  });
  beforeEach(async () => {
    await door.db.asServer((tx) => tx.query("delete from notices where app = 'pantry'"));
    person = new Person(door.url);
    grant = await person.start();
  });

  it('offers only the verbs in scope as tools, and none to a bot with no apps', async () => {
    await person.ask(grant, 'hello');
    const tools = (door.upstream.received.at(-1)?.body.tools ?? []) as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name)).toEqual(['pantry-add', 'pantry-count', 'pantry-slow', 'pantry-empty']);
    const talker = await person.start('talker');
    await person.ask(talker, 'hello');
    expect(door.upstream.received.at(-1)?.body.tools).toBeUndefined();
  });

  it('runs parallel calls whose arguments arrive in pieces, answers every id, then speaks the model and the narration', async () => {
    door.script(
      callsThenSays((reply) => {
        reply.token('Putting those away. ');
        reply.toolCalls([{ index: 0, id: 'call_a', type: 'function', function: { name: 'pantry-add', arguments: '' } }]);
        reply.toolCalls([{ index: 1, id: 'call_b', type: 'function', function: { name: 'pantry-add', arguments: '{"it' } }]);
        reply.toolCalls([{ index: 0, function: { arguments: '{"item":"rice"}' } }]);
        reply.toolCalls([{ index: 1, function: { arguments: 'em":"beans"}' } }]);
      }, 'Rice and beans are in.'),
    );
    const heard = await person.ask(grant, 'put rice and beans away');
    expect(heard.text).toBe("Putting those away. Rice and beans are in. That's 2 things in the pantry.");
    expect(await pantryItems(door.db)).toEqual(['rice', 'beans']);
    const second = door.upstream.received.at(-1) as Received;
    const asked = messagesOf(second).find((m) => m.role === 'assistant' && m.tool_calls !== undefined);
    expect(asked?.content).toBe('Putting those away. ');
    expect(asked?.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['call_a', 'pantry-add', '{"item":"rice"}'],
      ['call_b', 'pantry-add', '{"item":"beans"}'],
    ]);
    expect(toolAnswers(second).map((m) => [m.tool_call_id, JSON.parse(m.content ?? '') as unknown])).toEqual([
      ['call_a', { ok: true, output: { added: 'rice' } }],
      ['call_b', { ok: true, output: { added: 'beans' } }],
    ]);
    expect(heard.events).toEqual([
      { event: 'confab.verb', data: { verb: 'pantry.add', ok: true } },
      { event: 'confab.verb', data: { verb: 'pantry.add', ok: true } },
    ]);
  });

  it('takes parallel calls sent at one index with new ids, arguments as an object, and no ids at all', async () => {
    door.script(
      callsThenSays((reply) => {
        reply.toolCalls([{ index: 0, id: 'x1', function: { name: 'pantry-add', arguments: { item: 'oats' } } }]);
        reply.toolCalls([{ index: 0, id: 'x2', function: { name: 'pantry-add', arguments: '{"item":"salt"}' } }]);
        reply.toolCalls([{ function: { name: 'pantry-count', arguments: '' } }]);
      }),
    );
    await person.ask(grant, 'stock up');
    expect(await pantryItems(door.db)).toEqual(['oats', 'salt']);
    const ids = toolAnswers(door.upstream.received.at(-1) as Received).map((m) => m.tool_call_id);
    expect(ids).toEqual(['x1', 'x2', 'call_2']);
  });

  it('answers every call, even one with broken arguments, an unknown verb or a verb out of scope', async () => {
    door.script(
      callsThenSays((reply) => {
        reply.toolCalls([
          { index: 0, id: 'bad', function: { name: 'pantry-add', arguments: '{"item":' } },
          { index: 1, id: 'unknown', function: { name: 'garden-water', arguments: '{}' } },
          { index: 2, id: 'invalid', function: { name: 'pantry-add', arguments: '{"item":""}' } },
        ]);
      }),
    );
    const heard = await person.ask(grant, 'do odd things');
    const answers = toolAnswers(door.upstream.received.at(-1) as Received).map((m) => [m.tool_call_id, (JSON.parse(m.content ?? '') as { error: string }).error]);
    expect(answers).toEqual([
      ['bad', 'invalid_input'],
      ['unknown', 'unknown_verb'],
      ['invalid', 'invalid_input'],
    ]);
    expect(heard.text).toBe('All done.');
    expect(await pantryItems(door.db)).toEqual([]);
  });

  it('stops at the bot’s model calls per turn, and says so rather than looping', async () => {
    door.script((reply) => {
      reply.toolCalls([{ index: 0, id: `c${String(Math.random())}`, function: { name: 'pantry-count', arguments: '{}' } }]);
      reply.finish('tool_calls');
      reply.done();
    });
    const before = door.upstream.received.length;
    const heard = await person.ask(grant, 'count forever');
    expect(door.upstream.received.length - before).toBe(4);
    expect(heard.text).toContain(say(english, 'endings.out-of-steps'));
  });

  it('runs at most eight verbs a turn and tells the model which were not run', async () => {
    door.script(
      callsThenSays((reply) => {
        reply.toolCalls(Array.from({ length: 10 }, (_, i) => ({ index: i, id: `n${String(i)}`, function: { name: 'pantry-add', arguments: JSON.stringify({ item: `tin ${String(i)}` }) } })));
      }),
    );
    await person.ask(grant, 'ten tins');
    expect(await pantryItems(door.db)).toHaveLength(8);
    const notRun = toolAnswers(door.upstream.received.at(-1) as Received).filter((m) => (m.content ?? '').includes('not_run'));
    expect(notRun.map((m) => m.tool_call_id)).toEqual(['n8', 'n9']);
  });

  it('never adds twice when the same turn is retried, and adds again when the same words are said anew', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'm', function: { name: 'pantry-add', arguments: '{"item":"milk"}' } }]); }));
    await person.ask(grant, 'add milk', { turn: 'turn-0001-add-milk' });
    await person.ask(grant, 'add milk', { turn: 'turn-0001-add-milk' });
    expect(await pantryItems(door.db)).toEqual(['milk']);
    // The standard header names the same turn.
    await person.ask(grant, 'add milk', { headers: { 'idempotency-key': '"turn-0001-add-milk"' } });
    expect(await pantryItems(door.db)).toEqual(['milk']);
    // The same words, the same window of messages: a new turn all the same.
    await person.ask(grant, 'add milk', { turn: 'turn-0002-add-milk' });
    expect(await pantryItems(door.db)).toEqual(['milk', 'milk']);
  });

  it('takes a request with no turn id as a turn of its own: the same words twice are two writes', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'm', function: { name: 'pantry-add', arguments: '{"item":"oats"}' } }]); }));
    await person.ask(grant, 'add oats');
    await person.ask(grant, 'add oats');
    expect(await pantryItems(door.db)).toEqual(['oats', 'oats']);
  });

  it('writes twice for two tabs saying the same words, each its own turn', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'm', function: { name: 'pantry-add', arguments: '{"item":"tea"}' } }]); }));
    const before = [{ role: 'user' as const, content: 'hello' }, { role: 'assistant' as const, content: 'Hello.' }];
    await Promise.all([
      person.ask(grant, 'add tea', { before, turn: 'tab-one-turn-0000001' }),
      person.ask(grant, 'add tea', { before, turn: 'tab-two-turn-0000001' }),
    ]);
    expect(await pantryItems(door.db)).toEqual(['tea', 'tea']);
  });

  it('never lets one person’s turn id reach another’s recorded result', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'm', function: { name: 'pantry-add', arguments: '{"item":"salt"}' } }]); }));
    await person.ask(grant, 'add salt', { turn: 'shared-turn-id-000001' });
    const stranger = new Person(door.url);
    await stranger.ask(await stranger.start(), 'add salt', { turn: 'shared-turn-id-000001' });
    expect(await pantryItems(door.db)).toEqual(['salt', 'salt']);
  });

  it('refuses a malformed turn id with a sentence, and asks nothing', async () => {
    const asked = door.upstream.received.length;
    const malformed: Record<string, string>[] = [{ 'x-confab-turn': 'short' }, { 'idempotency-key': 'has spaces in it, not allowed' }, { 'x-confab-turn': 'turn-aaaaaaaaaaaaaaaa', 'idempotency-key': 'turn-bbbbbbbbbbbbbbbb' }];
    for (const headers of malformed) {
      const res = await person.call('/v1/chat/completions', {
        body: { stream: true, messages: [{ role: 'user', content: 'add milk' }] },
        headers: { authorization: `Bearer ${grant}`, ...headers },
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/x-confab-turn|Idempotency-Key/);
    }
    expect(door.upstream.received).toHaveLength(asked);
    expect(await pantryItems(door.db)).toEqual([]);
  });

  it('says a short filler line once while a slow verb runs', async () => {
    door.script(
      callsThenSays((reply) => {
        reply.toolCalls([
          { index: 0, id: 's1', function: { name: 'pantry-slow', arguments: '{"ms":900}' } },
          { index: 1, id: 's2', function: { name: 'pantry-slow', arguments: '{"ms":800}' } },
        ]);
      }, 'Checked.'),
    );
    const heard = await person.ask(grant, 'check slowly');
    expect(heard.text).toBe(`${say(english, 'acting.filler')} Checked.`);
  });

  it('cancels a read the person talks over', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'slow', function: { name: 'pantry-slow', arguments: '{"ms":5000}' } }]); }));
    const aborted = seen.slowAborted;
    const started = seen.slowStarted;
    const bargeIn = new AbortController();
    const asking = person.ask(grant, 'check slowly', { signal: bargeIn.signal }).catch(() => undefined);
    await expect.poll(() => seen.slowStarted).toBe(started + 1);
    bargeIn.abort();
    await asking;
    await expect.poll(() => seen.slowAborted).toBe(aborted + 1);
  });

  it('lets a write the person talks over finish once, and starts no write after the barge-in', async () => {
    door.script(
      callsThenSays((reply) => {
        reply.toolCalls([
          { index: 0, id: 'w1', function: { name: 'pantry-add', arguments: '{"item":"flour","waitMs":400}' } },
          { index: 1, id: 'w2', function: { name: 'pantry-add', arguments: '{"item":"sugar"}' } },
        ]);
      }),
    );
    const started = seen.writesStarted;
    const bargeIn = new AbortController();
    const asking = person.ask(grant, 'bake', { signal: bargeIn.signal }).catch(() => undefined);
    await expect.poll(() => seen.writesStarted).toBe(started + 1);
    bargeIn.abort();
    await asking;
    // The turn has ended (no call of its can start now) and the write under way has committed.
    await expect.poll(() => door.api.running.size).toBe(0);
    await expect.poll(() => pantryItems(door.db), { timeout: 5_000 }).toEqual(['flour']);
    expect(seen.writesStarted).toBe(started + 1);
  });

  it('keeps a confirm verb pending for the person, asks, and runs it once only when they approve in their page', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'e', function: { name: 'pantry-empty', arguments: '{}' } }]); }));
    await door.db.asServer((tx) => tx.query("insert into notices (person, bot, app, text, due_at) values ('someone', 'pantry-bot', 'pantry', 'jam', now())"));
    const calls = door.upstream.received.length;
    const heard = await person.ask(grant, 'empty the pantry');
    expect(door.upstream.received.length - calls).toBe(1);
    expect(heard.text).toBe('Empty the pantry? Say yes or no.');
    const confirm = heard.events.find((e) => e.event === 'confab.confirm');
    expect(confirm?.data).toMatchObject({ verb: 'pantry.empty', question: 'Empty the pantry? Say yes or no.' });
    expect(await pantryItems(door.db)).toEqual(['jam']);

    const id = String(confirm?.data.id);
    const approved = await person.call(`/api/actions/${id}/approve`, { body: {} });
    expect(await approved.json()).toEqual({ outcome: 'done', sentence: 'Done. The pantry is empty now.' });
    // Row level security: the delete ran as this person, and 'jam' is somebody else's.
    expect(await pantryItems(door.db)).toEqual(['jam']);
    const again = await person.call(`/api/actions/${id}/approve`, { body: {} });
    expect(((await again.json()) as { outcome: string }).outcome).toBe('expired');
  });

  it('says which verbs a turn may use and why, with the apps used lately in that conversation', async () => {
    await person.start('talker');
    expect(await (await person.call('/api/bots/talker/verbs')).json()).toMatchObject({ bot: 'talker', max: SCOPE_MAX, botApps: [], recentApps: [], inScope: [] });
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'r', function: { name: 'pantry-count', arguments: '{}' } }]); }));
    await person.ask(grant, 'how full is it', { conversation: 'talk-1' });
    const scope = (await (await person.call('/api/bots/pantry-bot/verbs?conversation=talk-1')).json()) as { recentApps: string[]; inScope: { verb: string; why: string; risk: string; confirm: boolean }[] };
    expect(scope.recentApps).toEqual(['pantry']);
    expect(scope.inScope.map((v) => `${v.verb}:${v.why}:${v.risk}${v.confirm ? ':asks' : ''}`)).toEqual([
      'pantry.add:bot:write',
      'pantry.count:bot:read',
      'pantry.slow:bot:read',
      'pantry.empty:bot:destructive:asks',
    ]);
    // Another person's conversation of the same name is theirs alone.
    const other = new Person(door.url);
    await other.start();
    expect(await (await other.call('/api/bots/pantry-bot/verbs?conversation=talk-1')).json()).toMatchObject({ recentApps: [] });
    expect((await person.call('/api/bots/nobody/verbs')).status).toBe(404);
  });

  it('logs each call without its arguments or results', async () => {
    door.script(callsThenSays((reply) => { reply.toolCalls([{ index: 0, id: 'p', function: { name: 'pantry-add', arguments: '{"item":"secret saffron"}' } }]); }));
    await person.ask(grant, 'add saffron');
    const logged = JSON.stringify([...door.verbLogs, ...door.doorLogs]);
    expect(logged).toContain('"verb":"pantry.add"');
    expect(logged).not.toContain('saffron');
    expect(logged).not.toContain('key-never-logged');
  });
});

describe('the stand-in acts with no provider bought', () => {
  let door: ActingDoor;

  beforeAll(async () => {
    door = await startActingDoor({ live: false });
  });
  afterAll(async () => {
    await door.close();
  });

  it('recognises a plain phrasing, calls the verb through the loop, and says the result and its narration', async () => {
    const person = new Person(door.url);
    const grant = await person.start();
    const heard = await person.ask(grant, 'Add lentils to the pantry.');
    expect(heard.text).toBe("I've put lentils in the pantry. That's 1 thing in the pantry.");
    expect(await pantryItems(door.db)).toEqual(['lentils']);
    expect(door.upstream.received).toHaveLength(0);
  });

  it('answers what it does not recognise as the stand-in, saying why', async () => {
    const person = new Person(door.url);
    const heard = await person.ask(await person.start(), 'Tell me a story');
    expect(heard.text).toMatch(/^I'm a stand-in/);
  });
});

describe('the apps a conversation used lately', () => {
  /** An app no test bot names: in scope only while a conversation used it lately. */
  const shed = defineApp({
    name: 'shed',
    description: 'What is in the shed.',
    verbs: [
      defineVerb({
        name: 'shed.look',
        description: 'Says what is in the shed.',
        example: 'what is in the shed',
        input: z.object({}),
        output: z.object({ things: z.array(z.string()) }),
        risk: 'read',
        deadlineMs: 1000,
        run: () => Promise.resolve({ things: ['a rake'] }),
      }),
    ],
  });
  let door: ActingDoor;
  let closeOwn: () => Promise<void> = () => Promise.resolve();
  const reads: string[] = [];
  beforeAll(async () => {
    // The backend's own database, noting each read of the apps used lately.
    const db = await openTestDatabase();
    closeOwn = () => db.close();
    const noting = (tx: Queryable): Queryable => ({
      query: (sql, params) => {
        if (sql.includes('from verb_calls where person')) reads.push('recent apps');
        return tx.query(sql, params);
      },
    });
    const pantryBot = parseBotFile('pantry-bot.md', BOT);
    door = await startActingDoor({
      overrides: {
        db: {
          ...db,
          asServer: (fn) => db.asServer((tx) => fn(noting(tx))),
          asPerson: (person, fn) => db.asPerson(person, (tx) => fn(noting(tx))),
          readAsServer: (fn) => db.readAsServer((reader) => fn(noting(reader))),
        },
        registry: createRegistry([pantry, shed]),
        bots: new Map([
          ['pantry-bot', pantryBot],
          ['everything', { ...pantryBot, slug: 'everything', apps: ['pantry', 'shed'] }],
        ]),
      },
    });
    usedShed = (person, conversation) =>
      db.asServer((tx) =>
        tx.query("insert into verb_calls (person, bot, verb, app, conversation, input_digest) values ($1, 'pantry-bot', 'shed.look', 'shed', $2, 'x')", [person, conversation]),
      );
  });
  let usedShed: (person: string, conversation: string) => Promise<unknown> = () => Promise.resolve();
  afterAll(async () => {
    await door.close();
    await closeOwn();
  });

  it('keeps an app used lately in scope for a bot that does not offer it, reading which apps those were', async () => {
    const person = new Person(door.url);
    const grant = await person.start('pantry-bot');
    reads.length = 0;
    await person.ask(grant, 'hello', { conversation: 'shed-talk' });
    expect(reads).toEqual(['recent apps']);
    expect(toolNames(door.upstream.received.at(-1))).toEqual(['pantry-add', 'pantry-count', 'pantry-slow', 'pantry-empty']);
    await usedShed(personOf(grant), 'shed-talk');
    await person.ask(grant, 'and now?', { conversation: 'shed-talk' });
    expect(toolNames(door.upstream.received.at(-1))).toEqual(['pantry-add', 'pantry-count', 'pantry-slow', 'pantry-empty', 'shed-look']);
  });

  it('does not read them for a bot that already offers every app whole: they could change nothing', async () => {
    const person = new Person(door.url);
    const grant = await person.start('everything');
    reads.length = 0;
    await person.ask(grant, 'hello', { conversation: 'shed-talk' });
    await person.ask(grant, 'again', { conversation: 'shed-talk' });
    expect(reads).toEqual([]);
    expect(toolNames(door.upstream.received.at(-1))).toEqual(['pantry-add', 'pantry-count', 'pantry-slow', 'pantry-empty', 'shed-look']);
  });
});

const toolNames = (received: Received | undefined) => ((received?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
/** The person a grant names (its claims are base64url JSON before the signature). */
const personOf = (grant: string) => (JSON.parse(Buffer.from(grant.split('.')[0] ?? '', 'base64url').toString('utf8')) as { person: string }).person;
