/**
 * The stand-in as a model that calls verbs: it hears a verb's plain phrasing and streams the call as
 * a provider would, words a result with the verb's own `say` (or an error with its sentence), opens
 * a skill whose words it hears and answers with the skill's own sentence, and answers anything else
 * as the stand-in always has.
 */
import { describe, expect, it } from 'vitest';
import { standInAnswer } from '../../../server/chat/standIn';
import type { Sleep } from '../../../server/chat/standIn';
import { plainLine, recognise, standInModel } from '../../../server/chat/standInModel';
import { ToolCallAccumulator } from '../../../server/chat/toolCalls';
import type { PromptMessage, UpstreamEvent } from '../../../server/chat/upstream';
import { sentenceOf } from '../../../server/verbs/errors';
import { createRegistry } from '../../../server/verbs/registry';
import type { Verb } from '../../../server/verbs/verb';
import skillsApp from '../../../server/apps/skills/index';
import type { StandInSkill } from '../../../server/chat/standInModel';
import { testApps } from '../../helpers/testApps';
import { shippedWords } from '../../../server/words/loadWords';

const registry = createRegistry(testApps);
const verbs = registry.verbs;
const noWait: Sleep = () => Promise.resolve();

async function heard(messages: readonly PromptMessage[], inScope: readonly Verb[] = verbs, signal = new AbortController().signal, skills: readonly StandInSkill[] = [], language = 'en'): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  const model = standInModel(messages, { reason: 'no-provider', verbs: inScope, skills, words: shippedWords().wordsIn(language), language, wordMs: 0, sleep: noWait, signal });
  for await (const event of model.events) events.push(event);
  return events;
}

const textOf = (events: readonly UpstreamEvent[]) => events.map((e) => (e.type === 'delta' ? e.text : '')).join('');

/** The conversation after the stand-in called `name` with `args` and the loop answered `content`. */
function afterCall(question: string, name: string, args: string, content: unknown, id = 'call_standin_0'): PromptMessage[] {
  return [
    { role: 'user', content: question },
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
    { role: 'tool', tool_call_id: id, content: JSON.stringify(content) },
  ];
}

describe('recognise', () => {
  it('hears a verb’s phrasing whatever the capitals, the curly apostrophes and the end punctuation', () => {
    expect(plainLine('  Add  the Robin’s egg to the TALLY?!  ')).toBe("add the robin's egg to the tally");
    expect(recognise('Add the Robin’s egg to the tally.', verbs)).toEqual({ verb: registry.verb('tally.add'), input: { text: "the robin's egg" } });
    expect(recognise('Clear the tally!', verbs)?.verb.name).toBe('tally.clear');
  });

  it('hears a phrasing written as a global pattern every time, not every other time', () => {
    for (let i = 0; i < 3; i += 1) expect(recognise('So, what time is it?', verbs)?.verb.name).toBe('chime.now');
  });

  it('hears only verbs in scope, and nothing a verb declares no phrasing for', () => {
    expect(recognise('add a wren to the tally', [registry.verb('chime.now') as Verb])).toBeUndefined();
    expect(recognise('check the tally slowly', verbs)).toBeUndefined();
  });
});

describe('standInModel', () => {
  it('calls the verb it recognises as a provider streams a call: id and name first, then the arguments in pieces', async () => {
    const events = await heard([{ role: 'user', content: 'Add a swallow to the tally.' }]);
    const pieces = events.flatMap((e) => (e.type === 'tool-call' ? [e.piece] : []));
    expect(pieces[0]).toEqual({ index: 0, id: 'call_standin_0', name: 'tally-add', arguments: '' });
    expect(pieces.length).toBeGreaterThan(2);
    const calls = new ToolCallAccumulator();
    for (const piece of pieces) calls.push(piece);
    expect(calls.calls()).toEqual([{ id: 'call_standin_0', name: 'tally-add', arguments: '{"text":"a swallow"}' }]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    expect(textOf(events)).toBe('');
  });

  it('calls with the input its phrasing gives, for the last thing the person said', async () => {
    const events = await heard([
      { role: 'user', content: 'Add a swallow to the tally.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'How many are on the tally?' },
    ]);
    const calls = new ToolCallAccumulator();
    for (const e of events) if (e.type === 'tool-call') calls.push(e.piece);
    expect(calls.calls()).toEqual([{ id: 'call_standin_0', name: 'tally-count', arguments: '{}' }]);
  });

  it('words a result with the verb’s own say, then finishes', async () => {
    const events = await heard(afterCall('add a swallow to the tally', 'tally-add', '{"text":"a swallow"}', { ok: true, output: { added: 'a swallow', total: 3 } }));
    expect(textOf(events)).toBe("I've added a swallow; that makes 3.");
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([]);
  });

  it('words a failed call with its error’s sentence', async () => {
    const events = await heard(afterCall('add a swallow to the tally', 'tally-add', '{"text":"a swallow"}', { ok: false, error: 'timed_out', message: sentenceOf('timed_out') }));
    expect(textOf(events)).toBe('That took too long, so I stopped waiting for it.');
  });

  it('words a failed call with no sentence by its code', async () => {
    const events = await heard(afterCall('add a swallow to the tally', 'tally-add', '{"text":"a swallow"}', { ok: false, error: 'key_reused' }));
    expect(textOf(events)).toBe(sentenceOf('key_reused'));
  });

  it('says Done. for a result its verb cannot word because it is not the shape promised, in the person’s language', async () => {
    const unshaped = afterCall('add a swallow to the tally', 'tally-add', '{"text":"a swallow"}', { ok: true, output: { added: 7 } });
    expect(textOf(await heard(unshaped))).toBe('Done.');
    expect(textOf(await heard(unshaped, verbs, undefined, [], 'es'))).toBe('Hecho.');
  });

  it('words each of several results in the order they were called', async () => {
    const messages: PromptMessage[] = [
      { role: 'user', content: 'add a swallow to the tally' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'tally-add', arguments: '{"text":"a swallow"}' } },
          { id: 'b', type: 'function', function: { name: 'tally-count', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: JSON.stringify({ ok: true, output: { added: 'a swallow', total: 1 } }) },
      { role: 'tool', tool_call_id: 'b', content: JSON.stringify({ ok: false, error: 'not_in_scope', message: sentenceOf('not_in_scope') }) },
    ];
    expect(textOf(await heard(messages))).toBe("I've added a swallow; that makes 1. That is not something I can do in this conversation.");
  });

  it('gives the stand-in’s usual answer, saying why, to a line it does not recognise', async () => {
    const events = await heard([{ role: 'user', content: 'What is the capital of Peru?' }]);
    expect(textOf(events)).toBe(standInAnswer('no-provider', 'What is the capital of Peru?'));
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('gives the usual answer to a phrasing whose verb is not in scope this turn', async () => {
    const events = await heard([{ role: 'user', content: 'Add a swallow to the tally.' }], [registry.verb('chime.now') as Verb]);
    expect(textOf(events)).toBe(standInAnswer('no-provider', 'Add a swallow to the tally.'));
  });

  describe('with a bot’s skills', () => {
    const open = skillsApp.verbs[0] as Verb;
    const skills: StandInSkill[] = [
      { name: 'plan-the-day' },
      {
        name: 'in-distress',
        standIn: {
          en: { hears: ['hopeless', "can't go on"], says: 'Please call your local emergency number if you might be in danger.' },
          es: { hears: ['sin esperanza'], says: 'Si puedes estar en peligro, llama al número de emergencias.' },
        },
      },
    ];
    const calledFor = async (line: string, inScope: readonly Verb[] = [...verbs, open], language = 'en') => {
      const calls = new ToolCallAccumulator();
      for (const e of await heard([{ role: 'user', content: line }], inScope, undefined, skills, language)) if (e.type === 'tool-call') calls.push(e.piece);
      return calls.calls();
    };

    it('opens the skill whose words it hears, as whole words anywhere in the line, before any verb’s phrasing', async () => {
      expect(await calledFor('I feel so Hopeless today.')).toEqual([{ id: 'call_standin_0', name: 'skills-open', arguments: '{"name":"in-distress"}' }]);
      expect(await calledFor('I can’t go on, add it to the tally')).toEqual([{ id: 'call_standin_0', name: 'skills-open', arguments: '{"name":"in-distress"}' }]);
      expect((await calledFor('Add hopelessness to the tally.'))[0]?.name).toBe('tally-add');
    });

    it('hears a skill by its words in the person’s language, and by no other language’s', async () => {
      const opened = [{ id: 'call_standin_0', name: 'skills-open', arguments: '{"name":"in-distress"}' }];
      expect(await calledFor('¿Y si me siento sin esperanza?', undefined, 'es')).toEqual(opened);
      expect(await calledFor('Me siento sin esperanza', undefined, 'es-MX')).toEqual(opened);
      expect(await calledFor('I feel hopeless', undefined, 'es')).toEqual([]);
      expect(await calledFor('Me siento sin esperanza', undefined, 'en')).toEqual([]);
      // A language the skill gives no lines in opens nothing: it is never answered in another's.
      expect(await calledFor('Je me sens sans espoir', undefined, 'fr')).toEqual([]);
    });

    it('opens none when skills.open is not in scope', async () => {
      expect(await calledFor('I feel hopeless', verbs)).toEqual([]);
    });

    it('answers an opened skill with its own sentence, and reads out one it has none for', async () => {
      const distress = afterCall('I feel hopeless', 'skills-open', '{"name":"in-distress"}', { ok: true, output: { name: 'in-distress', instructions: 'Point to help; do not counsel.' } });
      expect(textOf(await heard(distress, [...verbs, open], undefined, skills))).toBe('Please call your local emergency number if you might be in danger.');
      const plan = afterCall('open the skill plan-the-day', 'skills-open', '{"name":"plan-the-day"}', { ok: true, output: { name: 'plan-the-day', instructions: 'Look at the reminders first.' } });
      expect(textOf(await heard(plan, [...verbs, open], undefined, skills))).toBe('Look at the reminders first.');
    });

    it('answers an opened skill with its sentence in the person’s language', async () => {
      const distress = afterCall('Me siento sin esperanza', 'skills-open', '{"name":"in-distress"}', { ok: true, output: { name: 'in-distress', instructions: 'Point to help; do not counsel.' } });
      expect(textOf(await heard(distress, [...verbs, open], undefined, skills, 'es'))).toBe('Si puedes estar en peligro, llama al número de emergencias.');
    });
  });

  it('stops speaking, without finishing, once its signal aborts', async () => {
    const stop = new AbortController();
    stop.abort();
    const events = await heard([{ role: 'user', content: 'What is the capital of Peru?' }], verbs, stop.signal);
    expect(events).toEqual([]);
  });
});
