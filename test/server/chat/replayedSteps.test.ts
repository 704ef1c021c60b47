/**
 * A retried turn replays the model steps its first try recorded without asking the provider for
 * them: the same words, the same calls, nothing bought; only a step no try finished is asked.
 * Through the door on a real port, with a scripted provider that counts what it is asked and
 * words every answer differently, so a step it was asked for again could not pass for a replay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoorLogLine } from '../../../server/chat/doorTypes';
import { pantryItems, Person, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';

type Message = { role: string; content: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };

const messagesOf = (body: Record<string, unknown>) => body.messages as Message[];
const answered = (body: Record<string, unknown>) => messagesOf(body).some((m) => m.role === 'tool');
const questionOf = (body: Record<string, unknown>) => String(messagesOf(body).filter((m) => m.role === 'user').at(-1)?.content);

describe('a retried turn replays its recorded steps without asking the model', () => {
  let door: ActingDoor;
  /** What the provider was asked, by the person's question: each step it answered, in order (1: the call, 2: the words after). */
  const asked = new Map<string, number[]>();
  /** Questions whose second step fails the first time it is asked: the turn is cut after step 1. */
  const cutOnce = new Set<string>();

  beforeAll(async () => {
    door = await startActingDoor({ overrides: { prices: { m: { promptUsdPerMillion: 1_000, completionUsdPerMillion: 1_000 } } } });
    door.script((reply, received) => {
      const question = questionOf(received.body);
      const steps = asked.get(question) ?? [];
      const step = answered(received.body) ? 2 : 1;
      steps.push(step);
      asked.set(question, steps);
      const n = String(steps.length);
      if (step === 1) {
        const item = question.replace(/^add /, '');
        // Worded anew every time it is asked: a replay says the first wording, the model would not.
        reply.token(`Putting ${item} away (wording ${n}).`);
        reply.toolCalls([{ index: 0, id: `call-${n}`, function: { name: 'pantry-add', arguments: JSON.stringify({ item: steps.length === 1 ? item : item.toUpperCase() }) } }]);
        reply.finish('tool_calls');
        reply.usage(100, 20);
        reply.done();
        return;
      }
      if (cutOnce.delete(question)) {
        reply.fail(500, null, 'The provider fell over.');
        return;
      }
      reply.token(`All done (wording ${n}).`);
      reply.finish('stop');
      reply.usage(150, 10);
      reply.done();
    });
  });
  afterAll(async () => {
    await door.close();
  });

  const endedLines = () => door.doorLogs.filter((line): line is Extract<DoorLogLine, { event: 'answer.ended' }> => line.event === 'answer.ended');

  it('asks the provider nothing more when both steps were recorded, says the same words, and costs nothing', async () => {
    const person = new Person(door.url);
    const turn = 'turn-replayed-rice-0001';
    const first = await person.ask(await person.start(), 'add rice', { turn });
    expect(asked.get('add rice')).toEqual([1, 2]);
    expect(first.text).toBe("Putting rice away (wording 1). All done (wording 2). That's 1 thing in the pantry.");
    const firstCost = endedLines().at(-1);
    expect(firstCost?.costUsd).toBeGreaterThan(0);

    const again = await person.ask(await person.start(), 'add rice', { turn });
    expect(asked.get('add rice')).toEqual([1, 2]);
    expect(again.text).toBe(first.text);
    expect(again.events).toEqual(first.events);
    expect(await pantryItems(door.db)).toEqual(['rice']);
    // Admitted and settled as any turn, for nothing: no tokens bought, none estimated.
    expect(endedLines().at(-1)).toMatchObject({ ended: 'stop', promptTokens: 0, completionTokens: 0, estimated: false, costUsd: 0 });
  });

  it('asks only for the step the first try never recorded, acting on the recorded first step', async () => {
    const person = new Person(door.url);
    const turn = 'turn-replayed-beans-0001';
    cutOnce.add('add beans');
    const cut = await person.ask(await person.start(), 'add beans', { turn, conversation: 'beans' });
    expect(asked.get('add beans')).toEqual([1, 2]);
    expect(cut.text.startsWith('Putting beans away (wording 1).')).toBe(true);
    expect(await pantryItems(door.db)).toEqual(['rice', 'beans']);

    const before = door.upstream.received.length;
    const again = await person.ask(await person.start(), 'add beans', { turn, conversation: 'beans' });
    // One request more, and it is step 2's: told the first try's words and call, and the call's answer.
    expect(asked.get('add beans')).toEqual([1, 2, 2]);
    const stepTwo = door.upstream.received.slice(before);
    expect(stepTwo).toHaveLength(1);
    const told = messagesOf(stepTwo[0]?.body ?? {}).find((m) => m.role === 'assistant' && m.tool_calls !== undefined);
    expect(told).toMatchObject({ content: 'Putting beans away (wording 1).', tool_calls: [{ id: 'call-1', function: { name: 'pantry-add', arguments: JSON.stringify({ item: 'beans' }) } }] });
    expect(again.text).toBe("Putting beans away (wording 1). All done (wording 3). That's 1 thing in the pantry.");
    expect(await pantryItems(door.db)).toEqual(['rice', 'beans']);
    // Only what step 2 bought is counted: its reported usage, not the replayed step's.
    expect(endedLines().at(-1)).toMatchObject({ ended: 'stop', promptTokens: 150, completionTokens: 10, estimated: false });
  });
});
