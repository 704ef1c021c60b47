/**
 * Done when it says done, whatever the model says the second time: a retried turn acts on the
 * model steps its first try recorded, and asks one question per thing it asks about. Through the
 * door on a real port, with a scripted provider that words its calls differently on every try.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOOR_EVENTS } from '../../../common/acting/protocol';
import type { ActionSettled, PendingActionEvent } from '../../../common/acting/protocol';
import memory from '../../../server/apps/memory/index';
import { parseBotFile } from '../../../server/bots';
import { IDEMPOTENCY_KEPT_MS } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { pantry, pantryItems, Person, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';

const KEEPER = `---
name: Keeper
memory: none
apps: [memory]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You remember.`;

const PANTRY = `---
name: Pantry
memory: none
apps: [pantry]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You keep the pantry.`;

const answered = (body: Record<string, unknown>) => (body.messages as { role: string }[]).some((m) => m.role === 'tool');
const lastQuestion = (body: Record<string, unknown>) => (body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').at(-1)?.content;

describe('a retried turn replays what its first try recorded', () => {
  let door: ActingDoor;
  let nowMs = Date.UTC(2030, 0, 1, 9);
  /** How many times the model has been asked to start each question: each time it words the call anew. */
  const tries = new Map<string, number>();

  beforeAll(async () => {
    door = await startActingDoor({
      overrides: { clock: () => nowMs, bots: new Map([['keeper', parseBotFile('keeper.md', KEEPER)], ['pantry-bot', parseBotFile('pantry-bot.md', PANTRY)]]), registry: createRegistry([memory, pantry]) },
    });
    door.script((reply, received) => {
      if (answered(received.body)) {
        reply.token('Done.');
        reply.finish('stop');
        reply.done();
        return;
      }
      const question = String(lastQuestion(received.body));
      const n = (tries.get(question) ?? 0) + 1;
      tries.set(question, n);
      const call = question.startsWith('remember')
        ? { name: 'memory-remember', arguments: JSON.stringify({ text: n % 2 === 1 ? 'My sister is Ana' : 'my sister is   Ana!' }) }
        : question.startsWith('empty')
          ? { name: 'pantry-empty', arguments: '{}' }
          : { name: 'pantry-add', arguments: JSON.stringify({ item: n % 2 === 1 ? 'eggs' : 'Eggs' }) };
      reply.token(n % 2 === 1 ? 'Sure.' : 'Of course!');
      reply.toolCalls([{ index: 0, id: `call-${String(n)}`, function: call }]);
      reply.finish('tool_calls');
      reply.done();
    });
  });
  afterAll(async () => {
    await door.close();
  });

  const memories = async () => {
    const { rows } = await door.db.asServer((tx) => tx.query<{ text: string }>("select text from memories where bot = 'keeper'"));
    return rows.map((r) => r.text);
  };

  it('keeps one memory when the model would word it differently on the retry (memories: 1): the retries replay the first step, and run anew once the day has passed', async () => {
    const person = new Person(door.url);
    const turn = 'turn-retried-remember-0001';
    await person.ask(await person.start('keeper'), 'remember my sister is Ana', { turn });
    await person.ask(await person.start('keeper'), 'remember my sister is Ana', { turn });
    await person.ask(await person.start('keeper'), 'remember my sister is Ana', { turn });
    // The retries replay the recorded step: the model, which would word it differently, is not asked again.
    expect(tries.get('remember my sister is Ana')).toBe(1);
    expect(await memories()).toEqual(['My sister is Ana']);

    // The steps are kept as long as the keys, and swept with them.
    nowMs += IDEMPOTENCY_KEPT_MS + 60_000;
    await door.api.keys.sweep();
    const { rows } = await door.db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from turn_steps'));
    expect(rows[0]?.n).toBe(0);
    await person.ask(await person.start('keeper'), 'remember my sister is Ana', { turn });
    expect(tries.get('remember my sister is Ana')).toBe(2);
    expect(await memories()).toHaveLength(2);
  });

  it('asks one question when both tries ask to empty the pantry: the second yes, after eggs were added, runs nothing', async () => {
    const person = new Person(door.url);
    const grant = await person.start('pantry-bot');
    await person.ask(grant, 'add rice', { turn: 'turn-pantry-rice-0001', conversation: 'pantry-talk' });
    const turn = 'turn-retried-empty-0001';
    const first = await person.ask(grant, 'empty the pantry', { turn, conversation: 'pantry-talk' });
    const again = await person.ask(await person.start('pantry-bot'), 'empty the pantry', { turn, conversation: 'pantry-talk' });
    const asked = (heard: typeof first) => heard.events.filter((e) => e.event === DOOR_EVENTS.confirm).map((e) => e.data as unknown as PendingActionEvent);
    expect(asked(first)).toHaveLength(1);
    expect(asked(again).map((a) => a.id)).toEqual(asked(first).map((a) => a.id));
    const { rows } = await door.db.asServer((tx) => tx.query<{ n: number }>("select count(*)::int as n from pending_actions where verb = 'pantry.empty'"));
    expect(rows[0]?.n).toBe(1);

    const yes = async (id: string) => (await (await person.call(`/api/actions/${id}/approve`, { body: {} })).json()) as ActionSettled;
    const [firstCopy, secondCopy] = [asked(first)[0]?.id ?? '', asked(again)[0]?.id ?? ''];
    expect((await yes(firstCopy)).outcome).toBe('done');
    expect(await pantryItems(door.db)).toEqual([]);
    await person.ask(grant, 'add eggs', { turn: 'turn-pantry-eggs-0001', conversation: 'pantry-talk' });
    expect(await pantryItems(door.db)).toEqual(['eggs']);
    expect((await yes(secondCopy)).outcome).toBe('expired');
    expect(await pantryItems(door.db)).toEqual(['eggs']);
  });
});
