/**
 * Done when it says done: a turn's writes are keyed by the id the page gave the turn, never by its
 * words or where it falls in the page's window of messages. Through the door with the shipped
 * lists app and the stand-in (its sentences are the verb's own `say` over the real output, then
 * the narration over the list as it is), and with MCP beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callKeyOf } from '../../../server/chat/acting';
import { turnKeyOf } from '../../../server/chat/turnId';
import { IDEMPOTENCY_KEPT_MS } from '../../../server/verbs/executor';
import { recentMessages } from '../../../common/presence/compaction';
import { personOf, startConfabMcp } from '../mcp/confabMcp';
import type { ConfabMcp } from '../mcp/confabMcp';
import { heardOf } from '../../helpers/doorHeard';
import { pantryItems, Person, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';

type Message = { role: 'user' | 'assistant'; content: string };

describe('a long conversation that adds, removes and adds again', () => {
  let confab: ConfabMcp;

  beforeAll(async () => {
    confab = await startConfabMcp();
  });
  afterAll(async () => {
    await confab.close();
  });

  /** A page of `name`'s: keeps the whole conversation, and sends the door its last 32 messages as the page does. */
  function page(name: string) {
    const conversation: Message[] = [];
    let turns = 0;
    const grant = async () => {
      const res = await confab.asPerson(name, '/api/start', { body: { bot: 'lists-bot' } });
      return ((await res.json()) as { grant: string }).grant;
    };
    return {
      conversation,
      /** Says `question` as a new turn (a fresh id, as the page makes one when the person finishes). */
      async say(question: string, turn = `${name}-turn-${String((turns += 1)).padStart(12, '0')}`): Promise<string> {
        const messages = recentMessages<Message>([...conversation, { role: 'user', content: question }]);
        const res = await fetch(`${confab.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await grant()}`, 'x-confab-conversation': `${name}-talk`, 'x-confab-turn': turn },
          body: JSON.stringify({ stream: true, messages }),
        });
        const heard = await heardOf(res);
        expect(heard.status).toBe(200);
        conversation.push({ role: 'user', content: question }, { role: 'assistant', content: heard.text });
        return heard.text;
      },
    };
  }

  const shopping = async (name: string) => {
    const read = await confab.api.executor.execute({ verb: 'lists.read', input: { list: 'shopping' }, caller: { person: personOf(name), bot: 'lists-bot', via: 'model', timeZone: 'UTC' } });
    return read.ok ? (read.output as { items: string[] }).items : undefined;
  };

  it('has milk on the list at the end, and the third answer says what the list holds', async () => {
    const talk = page('long-talker');
    // Twenty exchanges, so the page's window (32 messages) is full before the list is touched.
    for (let n = 1; n <= 20; n += 1) talk.conversation.push({ role: 'user', content: `Tell me about day ${String(n)}.` }, { role: 'assistant', content: `Day ${String(n)} was fine.` });
    expect(await talk.say('add milk to my shopping list')).toBe("I've added milk to your shopping list. That's 1 thing on your shopping list.");
    expect(await talk.say('remove milk from my shopping list')).toBe("I've taken milk off your shopping list. Your shopping list is empty now.");
    expect(await talk.say('add milk to my shopping list')).toBe("I've added milk to your shopping list. That's 1 thing on your shopping list.");
    expect(await shopping('long-talker')).toEqual(['milk']);
  });

  it('says a no-op as what happened: milk already there is not "added"', async () => {
    const talk = page('twice-sayer');
    await talk.say('add milk to my shopping list');
    expect(await talk.say('add milk to my shopping list')).toBe('Milk was already on your shopping list. That\'s 1 thing on your shopping list.');
    expect(await shopping('twice-sayer')).toEqual(['milk']);
  });

  it('keeps an MCP client’s keys apart from a turn’s: the same literal key, or a turn’s very key, is a write of its own', async () => {
    const name = 'mcp-and-page';
    const talk = page(name);
    const literal = 'same-literal-key-0001';
    expect(await talk.say('add milk to my shopping list', literal)).toMatch(/^I've added milk/);
    expect(await talk.say('remove milk from my shopping list')).toMatch(/^I've taken milk off/);
    const client = await confab.client((await confab.tokenFor(name, ['lists-bot'])).token);
    // The key the turn's write was kept under, as a client might happen on it.
    const turnsKey = callKeyOf(turnKeyOf({ person: personOf(name), bot: 'lists-bot', conversationKey: `${name}-talk`, turn: literal }), 'lists.add', { list: 'shopping', items: ['milk'] }, 0);
    const viaTurnsKey = await client.callTool({ name: 'lists-add', arguments: { list: 'shopping', items: ['milk'], idempotencyKey: turnsKey } });
    expect(viaTurnsKey.structuredContent).toMatchObject({ list: 'shopping', added: ['milk'], alreadyThere: [] });
    expect(await shopping(name)).toEqual(['milk']);
    expect(await talk.say('remove milk from my shopping list')).toMatch(/^I've taken milk off/);
    const viaLiteral = await client.callTool({ name: 'lists-add', arguments: { list: 'shopping', items: ['milk'], idempotencyKey: literal } });
    expect(viaLiteral.structuredContent).toMatchObject({ list: 'shopping', added: ['milk'], alreadyThere: [] });
    expect(await shopping(name)).toEqual(['milk']);
    // The client's own retry is still its own: the same key replays, adding nothing.
    const retried = await client.callTool({ name: 'lists-add', arguments: { list: 'shopping', items: ['milk'], idempotencyKey: literal } });
    expect(retried.structuredContent).toEqual(viaLiteral.structuredContent);
    expect(confab.verbLines.filter((l) => l.via === 'mcp' && l.replayed === true)).toHaveLength(1);
  });
});

describe('write keys are kept a day for a retry, then swept', () => {
  let door: ActingDoor;
  let nowMs = Date.UTC(2030, 0, 1, 9);

  beforeAll(async () => {
    door = await startActingDoor({ overrides: { clock: () => nowMs } });
    door.script((reply, received) => {
      const answered = (received.body.messages as { role: string }[]).some((m) => m.role === 'tool');
      if (answered) reply.token('Done.');
      else reply.toolCalls([{ index: 0, id: 'k', function: { name: 'pantry-add', arguments: '{"item":"yeast"}' } }]);
      reply.finish(answered ? 'stop' : 'tool_calls');
      reply.done();
    });
  });
  afterAll(async () => {
    await door.close();
  });

  it('replays a retry until the key is a day old, sweeps nothing younger, and runs the turn anew once swept', async () => {
    const person = new Person(door.url);
    const turn = 'turn-kept-a-day-0001';
    await person.ask(await person.start(), 'add yeast', { turn });
    expect(await pantryItems(door.db)).toEqual(['yeast']);

    nowMs += IDEMPOTENCY_KEPT_MS - 60_000;
    expect(await door.api.keys.sweep()).toBe(0);
    await person.ask(await person.start(), 'add yeast', { turn });
    expect(await pantryItems(door.db)).toEqual(['yeast']);

    nowMs += 2 * 60_000;
    expect(await door.api.keys.sweep()).toBe(1);
    expect(await door.api.keys.sweep()).toBe(0);
    await person.ask(await person.start(), 'add yeast', { turn });
    expect(await pantryItems(door.db)).toEqual(['yeast', 'yeast']);
    // The calls themselves stay: the conversation's recent apps are read from them.
    const { rows } = await door.db.asServer((tx) => tx.query<{ n: number }>("select count(*)::int as n from verb_calls where verb = 'pantry.add'"));
    expect(rows[0]?.n).toBe(2);
  });
});
