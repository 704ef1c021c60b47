/**
 * `memory.forget` counts what one turn would forget: eight calls of one memory each, in one model
 * step, are one question naming all eight, and a yes forgets exactly those. Through the door on a
 * real port, with a scripted provider that asks for the calls as a model would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOOR_EVENTS } from '../../../common/acting/protocol';
import type { ActionSettled, PendingActionEvent } from '../../../common/acting/protocol';
import memory from '../../../server/apps/memory/index';
import { parseBotFile } from '../../../server/bots';
import { createRegistry } from '../../../server/verbs/registry';
import { Person, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';

const KEEPER = `---
name: Keeper
memory: none
apps: [memory]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You remember.`;

const NAMES = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elena', 'Felix', 'Greta', 'Hugo'];
const TOLD = NAMES.map((name) => `${name} is my cousin`);

type Message = { role: string; content: unknown };
const messagesOf = (body: Record<string, unknown>) => body.messages as Message[];

describe('memory.forget asks once for what one step would forget', () => {
  let door: ActingDoor;

  beforeAll(async () => {
    door = await startActingDoor({ overrides: { bots: new Map([['keeper', parseBotFile('keeper.md', KEEPER)]]), registry: createRegistry([memory]) } });
    // "remember: a; b" → one memory.remember call for each; "forget: a; b" → one memory.forget call for each, all in one step.
    door.script((reply, received) => {
      const messages = messagesOf(received.body);
      if (messages.some((m) => m.role === 'tool')) {
        reply.token('Done.');
        reply.finish('stop');
        reply.done();
        return;
      }
      const question = String(messages.filter((m) => m.role === 'user').at(-1)?.content);
      const [verb = '', rest = ''] = question.split(': ');
      const calls = rest.split('; ').map((words, index) => ({
        index,
        id: `call-${String(index + 1)}`,
        function: verb === 'remember' ? { name: 'memory-remember', arguments: JSON.stringify({ text: words }) } : { name: 'memory-forget', arguments: JSON.stringify({ about: words }) },
      }));
      reply.token('Right.');
      reply.toolCalls(calls);
      reply.finish('tool_calls');
      reply.done();
    });
  });
  afterAll(async () => {
    await door.close();
  });

  /** The texts of the keeper's memories (every person's: each test has its own door person). */
  const memories = async () => {
    const { rows } = await door.db.asServer((tx) => tx.query<{ text: string }>("select text from memories where bot = 'keeper'"));
    return rows.map((r) => r.text).sort();
  };
  const asked = (events: { event: string; data: Record<string, unknown> }[]) => events.filter((e) => e.event === DOOR_EVENTS.confirm).map((e) => e.data as unknown as PendingActionEvent);

  it('asks one question naming all eight memories for eight calls of one each, forgets nothing before the yes, and exactly those eight after it', async () => {
    const person = new Person(door.url);
    const grant = await person.start('keeper');
    await person.ask(grant, `remember: ${TOLD.join('; ')}`);
    await person.ask(grant, 'remember: I like coffee');
    expect(await memories()).toEqual([...TOLD, 'I like coffee'].sort());

    const heard = await person.ask(grant, `forget: ${NAMES.join('; ')}`);
    const question = 'Forget the 8 things you told me about Ana, Bruno, Carla, Diego, Elena, Felix, Greta, and Hugo? Say yes or no.';
    expect(asked(heard.events)).toEqual([expect.objectContaining({ verb: 'memory.forget', question })]);
    expect(heard.text).toContain(question);
    // Not one ran before the question: the step's eight calls were one.
    expect(heard.events.filter((e) => e.event === DOOR_EVENTS.verb)).toEqual([]);
    expect(await memories()).toEqual([...TOLD, 'I like coffee'].sort());

    // Told after the question: not one it named, so the yes leaves it.
    await person.ask(grant, 'remember: Ana has a new bike');
    const yes = (await (await person.call(`/api/actions/${asked(heard.events)[0]?.id ?? ''}/approve`, { body: {} })).json()) as ActionSettled;
    expect(yes.outcome).toBe('done');
    expect(await memories()).toEqual(['Ana has a new bike', 'I like coffee']);
  });

  it('forgets one memory without a question, as before', async () => {
    const person = new Person(door.url);
    const grant = await person.start('keeper');
    await person.ask(grant, 'remember: Porto is where my aunt lives');
    const before = await memories();
    const heard = await person.ask(grant, 'forget: Porto');
    expect(asked(heard.events)).toEqual([]);
    expect(heard.events.filter((e) => e.event === DOOR_EVENTS.verb)).toEqual([expect.objectContaining({ data: { verb: 'memory.forget', ok: true } })]);
    expect(await memories()).toEqual(before.filter((text) => text !== 'Porto is where my aunt lives'));
  });

  it('runs calls that would forget one memory between them as one, without a question, and answers every call', async () => {
    const person = new Person(door.url);
    const grant = await person.start('keeper');
    await person.ask(grant, 'remember: Lisbon is where my uncle lives');
    const before = await memories();
    const sent = door.upstream.received.length;
    const heard = await person.ask(grant, 'forget: Lisbon; Madrid');
    expect(asked(heard.events)).toEqual([]);
    expect(heard.events.filter((e) => e.event === DOOR_EVENTS.verb)).toEqual([expect.objectContaining({ data: { verb: 'memory.forget', ok: true } })]);
    expect(await memories()).toEqual(before.filter((text) => text !== 'Lisbon is where my uncle lives'));
    // The model is told of each of its calls: the one that ran for both, and the other pointing to it.
    const tools = door.upstream.received.slice(sent).flatMap((r) => messagesOf(r.body)).filter((m): m is Message & { tool_call_id: string } => m.role === 'tool');
    expect(tools.map((m) => m.tool_call_id)).toEqual(['call-1', 'call-2']);
    expect(JSON.parse(String(tools[0]?.content))).toMatchObject({ ok: true, output: { count: 1 } });
    const other = JSON.parse(String(tools[1]?.content)) as { ok: boolean; message: string };
    expect(other.ok).toBe(true);
    expect(other.message).toContain('call-1');
  });
});
