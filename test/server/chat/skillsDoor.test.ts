/**
 * Skills through the door: the prompt carries the description, `skills.open` answers the body, and
 * a skill's verbs are offered only once it has been opened in the conversation — which a second
 * instance over the same database knows — while before that a call to one is refused as unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import skillsApp from '../../../server/apps/skills/index';
import { parseBotFile } from '../../../server/bots';
import { parseSkillFile } from '../../../server/skills';
import { createRegistry } from '../../../server/verbs/registry';
import { testBackend } from '../../helpers/testBackend';
import { BOT, pantry, Person, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';
import type { Received, Reply } from './localServers';
import { serveApp } from './localServers';

const BODY = 'Count the pantry with pantry.count before you say how full it is.';
const stocktake = parseSkillFile('skills/stocktake.md', `---\ndescription: When somebody asks how full the pantry is.\nverbs: [pantry.count]\n---\n${BODY}\n`);
const skilled = BOT.replace('apps: [pantry]', 'apps: [pantry]\nskills: [stocktake]');

type Sent = { role: string; content?: string | null; tool_call_id?: string };
const toolsOf = (received: Received | undefined) => ((received?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const answersOf = (received: Received) => (received.body.messages as Sent[]).filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content ?? '{}') as Record<string, unknown>);

/** Calls `name` with `args` first, then says "Done." once it has the result. */
const calling = (name: string, args: object) => (reply: Reply, received: Received) => {
  if (answersOf(received).length === 0) {
    reply.toolCalls([{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } }]);
    reply.finish('tool_calls');
  } else {
    reply.token('Done.');
    reply.finish();
  }
  reply.done();
};

describe('a bot’s skills in the door', () => {
  let door: ActingDoor;
  const overrides = {
    bots: new Map([['pantry-bot', parseBotFile('pantry-bot.md', skilled)]]),
    registry: createRegistry([pantry, skillsApp]),
    skills: new Map([['stocktake', stocktake]]),
  };

  beforeAll(async () => {
    door = await startActingDoor({ overrides });
  });
  afterAll(async () => {
    await door.close();
  });

  it('puts the description in the prompt and not the body, and offers skills.open but not the skill’s verbs', async () => {
    const person = new Person(door.url);
    await person.ask(await person.start(), 'hello', { conversation: 'skills-1' });
    const sent = door.upstream.received.at(-1);
    const system = (sent?.body.messages as Sent[])[0]?.content ?? '';
    expect(system).toContain('- stocktake: When somebody asks how full the pantry is.');
    expect(system).not.toContain(BODY);
    expect(toolsOf(sent)).toContain('skills-open');
    expect(toolsOf(sent)).not.toContain('pantry-count');
  });

  it('refuses a skill’s verb named before the skill is opened as if it did not exist', async () => {
    const person = new Person(door.url);
    door.script(calling('pantry-count', {}));
    await person.ask(await person.start(), 'how full is the pantry', { conversation: 'skills-2' });
    expect(answersOf(door.upstream.received.at(-1) as Received)[0]).toMatchObject({ ok: false, error: 'unknown_verb' });
  });

  it('answers the body from skills.open, then offers the skill’s verbs in that conversation — on another instance too', async () => {
    const person = new Person(door.url);
    const grant = await person.start();
    door.script(calling('skills-open', { name: 'stocktake' }));
    await person.ask(grant, 'how full is the pantry', { conversation: 'skills-3' });
    expect(answersOf(door.upstream.received.at(-1) as Received)[0]).toEqual({ ok: true, output: { name: 'stocktake', instructions: BODY } });

    door.script((reply) => {
      reply.token('Hello.');
      reply.finish();
      reply.done();
    });
    await person.ask(grant, 'and now?', { conversation: 'skills-3' });
    expect(toolsOf(door.upstream.received.at(-1))).toContain('pantry-count');
    const listed = (await (await person.call('/api/bots/pantry-bot/verbs?conversation=skills-3')).json()) as { inScope: { verb: string; why: string }[] };
    expect(listed.inScope).toContainEqual(expect.objectContaining({ verb: 'pantry.count', why: 'skill' }));
    await person.ask(grant, 'and elsewhere?', { conversation: 'skills-4' });
    expect(toolsOf(door.upstream.received.at(-1))).not.toContain('pantry-count');

    // A second instance over the same database reads which skills the conversation opened.
    const other = testBackend(door.db, { ...overrides, grantSecret: door.api.grantSecret, providers: [{ name: 'up', baseUrl: door.upstream.baseUrl, apiKey: 'k', model: 'm' }], live: true });
    const served = await serveApp(other.app);
    try {
      const there = new Person(served.url);
      there.cookie = person.cookie;
      await there.ask(grant, 'still?', { conversation: 'skills-3' });
      expect(toolsOf(door.upstream.received.at(-1))).toContain('pantry-count');
    } finally {
      await served.close();
      await other.close();
    }
  });

  it('refuses to open a skill the bot does not have', async () => {
    const person = new Person(door.url);
    door.script(calling('skills-open', { name: 'refunds' }));
    await person.ask(await person.start(), 'refund me', { conversation: 'skills-5' });
    expect(answersOf(door.upstream.received.at(-1) as Received)[0]).toMatchObject({ ok: false, error: 'invalid_input' });
  });
});
