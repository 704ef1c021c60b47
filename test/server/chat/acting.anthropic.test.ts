/**
 * The door's tool loop with Anthropic answering (the stand-in Messages endpoint) — alone, and
 * falling over to and from an OpenAI-shaped provider halfway through a turn, so a conversation
 * with tool calls and results that began on one is replayed on the other.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseBotFile } from '../../../server/bots';
import type { AnthropicMessage } from '../../../server/chat/anthropicWire';
import { anthropicToolId } from '../../../server/chat/anthropicWire';
import { startAnthropicStandIn } from './anthropicStandIn';
import type { AnthropicStandIn, ScriptedMessage } from './anthropicStandIn';
import { BOT, Person, pantryItems, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';
import type { Received } from './localServers';

/** The pantry bot, written for Anthropic with a model of its own. */
const CLAUDE_BOT = BOT.replace('name: Pantry\n', 'name: Claude Pantry\nprovider: anthropic\nmodel: claude-sonnet-4-5\n');

const messagesOf = (received: Received) => received.body.messages as AnthropicMessage[];
const hasResults = (received: Received) => messagesOf(received).some((m) => m.content.some((block) => block.type === 'tool_result'));

/** An Anthropic script: `first` until the request carries tool results, then `after`. */
function anthropicCallsThenSays(first: ScriptedMessage, after: string) {
  return (reply: Parameters<Parameters<AnthropicStandIn['script']>[0]>[0], received: Received) => {
    reply.answer(hasResults(received) ? { blocks: [{ text: [after] }] } : first);
  };
}

describe('the door runs verbs Anthropic calls, and falls over mid-turn both ways', () => {
  let door: ActingDoor;
  let claude: AnthropicStandIn;
  let person: Person;

  beforeAll(async () => {
    claude = await startAnthropicStandIn((reply) => {
      reply.answer({ blocks: [{ text: ['Hello.'] }] });
    });
    // The OpenAI-shaped provider is the acting door's own scripted upstream, `up`, asked first unless the bot names Anthropic.
    door = await startActingDoor({
      moreProviders: [{ name: 'anthropic', kind: 'anthropic', baseUrl: claude.baseUrl, apiKey: 'sk-ant-never-logged', model: 'claude-haiku-4-5' }],
      overrides: {
        bots: new Map([
          ['pantry-bot', parseBotFile('pantry-bot.md', BOT)],
          ['claude-pantry', parseBotFile('claude-pantry.md', CLAUDE_BOT)],
        ]),
      },
    });
  });
  afterAll(async () => {
    await door.close();
    await claude.close();
  });
  beforeEach(async () => {
    await door.db.asServer((tx) => tx.query("delete from notices where app = 'pantry'"));
    person = new Person(door.url);
  });

  it('runs a tool Anthropic streams with its input JSON split, and answers it as a tool_result in a user turn', async () => {
    claude.script(
      anthropicCallsThenSays({ blocks: [{ text: ['Adding it. '] }, { toolUse: { id: 'toolu_01', name: 'pantry-add', json: ['{"ite', 'm": "ri', 'ce"}'] } }] }, 'Rice is in.'),
    );
    const heard = await person.ask(await person.start('claude-pantry'), 'add rice');
    expect(heard.text).toBe("Adding it. Rice is in. That's 1 thing in the pantry.");
    expect(await pantryItems(door.db)).toEqual(['rice']);
    const second = claude.received.at(-1) as Received;
    expect(second.body.model).toBe('claude-sonnet-4-5');
    expect(messagesOf(second).slice(-2)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Adding it. ' }, { type: 'tool_use', id: 'toolu_01', name: 'pantry-add', input: { item: 'rice' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: JSON.stringify({ ok: true, output: { added: 'rice' } }) }] },
    ]);
    expect((second.body.tools as { name: string }[]).map((tool) => tool.name)).toEqual(['pantry-add', 'pantry-count', 'pantry-slow', 'pantry-empty']);
  });

  it('runs two tools from one message and answers both in ONE user turn', async () => {
    claude.script(
      anthropicCallsThenSays(
        {
          blocks: [
            { toolUse: { id: 'toolu_a', name: 'pantry-add', json: ['{"item":', '"oats"}'] } },
            { toolUse: { id: 'toolu_b', name: 'pantry-add', json: ['{"item":"salt"}'] } },
          ],
        },
        'Both in.',
      ),
    );
    const heard = await person.ask(await person.start('claude-pantry'), 'add oats and salt');
    expect(heard.text).toBe("Both in. That's 2 things in the pantry.");
    expect(await pantryItems(door.db)).toEqual(['oats', 'salt']);
    const last = messagesOf(claude.received.at(-1) as Received).at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content.map((block) => (block.type === 'tool_result' ? block.tool_use_id : block.type))).toEqual(['toolu_a', 'toolu_b']);
  });

  it('replays a turn begun on OpenAI — its tool calls and results — on Anthropic when OpenAI fails halfway (503), with Anthropic’s own model', async () => {
    let openAiCalls = 0;
    door.script((reply) => {
      openAiCalls += 1;
      if (openAiCalls > 1) {
        reply.fail(503, 'server_error', 'Down.');
        return;
      }
      reply.token('Checking. ');
      reply.toolCalls([{ index: 0, id: 'call_rice', type: 'function', function: { name: 'pantry-add', arguments: '{"item":"rice"}' } }]);
      reply.toolCalls([{ index: 1, id: 'call.count:1', type: 'function', function: { name: 'pantry-count', arguments: '' } }]);
      reply.finish('tool_calls');
      reply.done();
    });
    claude.script((reply) => {
      reply.answer({ blocks: [{ text: ['Claude ', 'finishing.'] }] });
    });
    const before = claude.received.length;
    const heard = await person.ask(await person.start(), 'add rice and count');
    expect(heard.text).toBe("Checking. Claude finishing. That's 1 thing in the pantry.");
    expect(claude.received.length - before).toBe(1);
    const replayed = claude.received.at(-1) as Received;
    expect(replayed.body.model).toBe('claude-haiku-4-5');
    expect(replayed.body.system).toBe('You keep the pantry.');
    const countId = anthropicToolId('call.count:1');
    expect(countId).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(messagesOf(replayed)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'add rice and count' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking. ' },
          { type: 'tool_use', id: 'call_rice', name: 'pantry-add', input: { item: 'rice' } },
          { type: 'tool_use', id: countId, name: 'pantry-count', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_rice', content: JSON.stringify({ ok: true, output: { added: 'rice' } }) },
          { type: 'tool_result', tool_use_id: countId, content: JSON.stringify({ ok: true, output: { items: 1 } }) },
        ],
      },
    ]);
    expect(door.doorLogs).toContainEqual({ event: 'provider.fell-over', provider: 'up', failure: 'status', status: 503, code: 'server_error' });
  });

  it('falls over from Anthropic (529 overloaded) to OpenAI with OpenAI’s own model, and back to Anthropic with OpenAI’s calls in the history, each call priced by what answered it', async () => {
    let claudeCalls = 0;
    claude.script((reply) => {
      claudeCalls += 1;
      if (claudeCalls === 1) reply.fail(529, 'overloaded_error', 'Overloaded');
      else reply.answer({ blocks: [{ text: ['Back on Claude.'] }] });
    });
    door.script((reply) => {
      reply.toolCalls([{ index: 0, id: 'call_beans', type: 'function', function: { name: 'pantry-add', arguments: '{"item":"beans"}' } }]);
      reply.finish('tool_calls');
      reply.usage(100, 10);
      reply.done();
    });
    const openAiBefore = door.upstream.received.length;
    const heard = await person.ask(await person.start('claude-pantry'), 'add beans');
    expect(heard.text).toBe("Back on Claude. That's 1 thing in the pantry.");
    expect(door.upstream.received.length - openAiBefore).toBe(1);
    expect((door.upstream.received.at(-1) as Received).body.model).toBe('m');
    const back = claude.received.at(-1) as Received;
    expect(back.body.model).toBe('claude-sonnet-4-5');
    expect(messagesOf(back).slice(-2)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_beans', name: 'pantry-add', input: { item: 'beans' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_beans', content: JSON.stringify({ ok: true, output: { added: 'beans' } }) }] },
    ]);
    expect(door.doorLogs).toContainEqual({ event: 'provider.fell-over', provider: 'anthropic', failure: 'status', status: 529, code: 'overloaded_error' });
    expect(JSON.stringify(door.doorLogs)).not.toMatch(/never-logged|Overloaded/);
    // OpenAI's call: 100 in, 10 out, its model `m` at the default table's * ($10/$30 per million);
    // Anthropic's: 10 in, 5 out at claude-sonnet-4-5's $3/$15 — not the whole turn at `m`'s price.
    const ended = door.doorLogs.findLast((line) => line.event === 'answer.ended');
    expect(ended).toMatchObject({ promptTokens: 110, completionTokens: 15, estimated: false });
    expect(ended?.event === 'answer.ended' ? ended.costUsd : undefined).toBeCloseTo((100 * 10 + 10 * 30 + 10 * 3 + 5 * 15) / 1_000_000, 12);
  });
});
