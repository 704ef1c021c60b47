/**
 * The registry projected as OpenAI function tools: a pure function of the verbs, snapshot-tested,
 * and names that travel as `app-verb` and come back as `app.verb`.
 */
import { describe, expect, it } from 'vitest';
import memory from '../../../server/apps/memory/index';
import { mcpDescriptionOf } from '../../../server/mcp/tools';
import { createRegistry } from '../../../server/verbs/registry';
import { asksFirst } from '../../../server/verbs/verb';
import { inputSchemaOf, modelDescriptionOf, openAiTools, outputSchemaOf, toolNameOf, verbNameOf } from '../../../server/verbs/project';
import { tally, testApps } from '../../helpers/testApps';

const registry = createRegistry(testApps);
const verb = (name: string) => {
  const found = registry.verb(name);
  if (found === undefined) throw new Error(`No verb ${name}.`);
  return found;
};

describe('openAiTools', () => {
  it('projects a write and a verb the person confirms as function tools', () => {
    expect(openAiTools([verb('tally.add'), verb('tally.clear')])).toMatchInlineSnapshot(`
      [
        {
          "function": {
            "description": "Adds one thing to the tally. Example: "add a swallow to the tally".",
            "name": "tally-add",
            "parameters": {
              "properties": {
                "text": {
                  "maxLength": 200,
                  "minLength": 1,
                  "type": "string",
                },
                "waitMs": {
                  "maximum": 5000,
                  "minimum": 0,
                  "type": "integer",
                },
              },
              "required": [
                "text",
              ],
              "type": "object",
            },
          },
          "type": "function",
        },
        {
          "function": {
            "description": "Removes everything from the tally. Example: "clear the tally". The person is asked to confirm before it runs; do not ask them yourself.",
            "name": "tally-clear",
            "parameters": {
              "properties": {},
              "type": "object",
            },
          },
          "type": "function",
        },
      ]
    `);
  });

  it('projects every test verb the same way each time, writing each verb’s tool out once', () => {
    expect(openAiTools(registry.verbs)).toMatchSnapshot();
    const first = openAiTools(registry.verbs);
    const again = [...openAiTools([...registry.verbs].reverse())].reverse();
    // The very same tools, not copies: each was made at its first turn and is kept.
    first.forEach((tool, i) => {
      expect(again[i]).toBe(tool);
      expect(tool.function.parameters).toEqual(inputSchemaOf(registry.verbs[i] as (typeof registry.verbs)[number]));
    });
  });

  it('gives every tool a name OpenAI accepts and no $schema line', () => {
    for (const tool of openAiTools(registry.verbs)) {
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.function.parameters).not.toHaveProperty('$schema');
      expect(tool.function.parameters.type).toBe('object');
    }
  });

  it('offers no tools for no verbs', () => {
    expect(openAiTools([])).toEqual([]);
  });
});

describe('schemas', () => {
  it('gives an input schema as the caller writes it, defaults optional', () => {
    expect(inputSchemaOf(verb('tally.fail'))).toEqual({
      type: 'object',
      properties: { how: { type: 'string', enum: ['crash', 'refuse'] }, text: { type: 'string', default: 'spoiled' } },
      required: ['how'],
    });
  });

  it('gives an output schema as the executor answers it, closed to extra fields', () => {
    expect(outputSchemaOf(verb('tally.add'))).toEqual({
      type: 'object',
      properties: { added: { type: 'string' }, total: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 } },
      required: ['added', 'total'],
      additionalProperties: false,
    });
  });

  it('tells the model the person confirms only for a verb that asks', () => {
    expect(modelDescriptionOf(verb('tally.count'))).toBe('Says how many things are on the tally. Example: "how many are on the tally".');
    expect(modelDescriptionOf(verb('tally.clear'))).toMatch(/The person is asked to confirm before it runs; do not ask them yourself\.$/);
  });

  it('tells the model and MCP clients the person may be asked for a verb that decides per call', () => {
    const forget = memory.verbs.find((v) => v.name === 'memory.forget');
    expect(forget === undefined ? 'none' : asksFirst(forget)).toBe('sometimes');
    if (forget === undefined) return;
    expect(modelDescriptionOf(forget)).toMatch(/The person may be asked to confirm before it runs; do not ask them yourself\.$/);
    expect(mcpDescriptionOf(forget)).toMatch(/Give an idempotencyKey; .* Some calls need the person's yes in their Confab page; those are refused over MCP\.$/);
    expect(() => createRegistry([{ name: 'odd', description: 'Odd.', verbs: [{ ...forget, name: 'odd.forget', ask: undefined }] }])).toThrow(/say what it asks/);
  });
});

describe('names', () => {
  it('sends lists.add as lists-add and reads lists-add back as lists.add', () => {
    expect(toolNameOf('lists.add')).toBe('lists-add');
    expect(verbNameOf('lists-add')).toBe('lists.add');
    expect(toolNameOf('my_app.do_it')).toBe('my_app-do_it');
    expect(verbNameOf('my_app-do_it')).toBe('my_app.do_it');
  });

  it('brings every test verb back from its tool name', () => {
    for (const { name } of tally.verbs) expect(verbNameOf(toolNameOf(name))).toBe(name);
    for (const { name } of registry.verbs) expect(registry.verb(verbNameOf(toolNameOf(name)))?.name).toBe(name);
  });

  it('leaves a name that is no tool name as it is, so it is an unknown verb', () => {
    for (const name of ['lists_add', 'Lists-add', 'lists-add-more', 'lists-', '-add', 'lists.add', '', 'lists-Add']) {
      expect(verbNameOf(name)).toBe(name);
    }
  });
});
