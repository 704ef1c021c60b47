/**
 * The registry projected for a model: OpenAI function tools, pure and snapshot-tested. The MCP
 * descriptor is the other projection (`server/mcp/`); neither has a handler of its own.
 *
 * OpenAI function names allow letters, digits, `_` and `-` only, so `lists.add` travels as
 * `lists-add`; verb names never hold a dash, so the way back is unambiguous.
 */
import { z } from 'zod';
import { forModel } from '../../common/modelText';
import type { ModelText } from '../../common/modelText';
import type { Verb } from './verb';
import { fenced } from '../outside/fence';
import { asksFirst } from './verb';

export interface OpenAiTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  };
}

/** `lists.add` → `lists-add`. */
export function toolNameOf(verb: string): string {
  return verb.replace('.', '-');
}

/** `lists-add` → `lists.add`; a name that is no verb's comes back as it is (and is `unknown_verb`). */
export function verbNameOf(tool: string): string {
  return /^[a-z][a-z0-9_]*-[a-z][a-z0-9_]*$/.test(tool) ? tool.replace('-', '.') : tool;
}

/** The verb's input as JSON Schema (an outside tool's as it gave it), without the `$schema` line a model does not need. */
export function inputSchemaOf(verb: Verb): Record<string, unknown> {
  const { $schema: _omitted, ...schema } = verb.jsonSchema?.input ?? (z.toJSONSchema(verb.input, { io: 'input' }));
  return schema;
}

/** The verb's output as JSON Schema. */
export function outputSchemaOf(verb: Verb): Record<string, unknown> {
  const { $schema: _omitted, ...schema } = verb.jsonSchema?.output ?? (z.toJSONSchema(verb.output, { io: 'output' }));
  return schema;
}

/** What the model reads about a verb: its description, an example, and whether the person is asked first. */
export function modelDescriptionOf(verb: Verb): ModelText {
  const asks = forModel(
    {
      always: ' The person is asked to confirm before it runs; do not ask them yourself.',
      sometimes: ' The person may be asked to confirm before it runs; do not ask them yourself.',
      never: '',
    }[asksFirst(verb)],
  );
  // An outside tool's description is the other end's words: fenced, as data from a named source.
  const description = verb.remote === true ? fenced(verb.name.slice(0, verb.name.indexOf('.')), 'description', verb.description) : verb.description;
  return forModel(`${description} Example: "${verb.example}".${asks}`);
}

/**
 * Each verb's tool, made once: a verb is fixed once its app has loaded, and writing its schema out
 * takes Zod 0.05 ms a verb — half a millisecond before every answer's question could leave for a
 * bot with a dozen verbs. The tools are shared by every turn, so nobody may change one.
 */
const toolOfVerb = new WeakMap<Verb, Readonly<OpenAiTool>>();

export function openAiTools(verbs: readonly Verb[]): readonly Readonly<OpenAiTool>[] {
  return verbs.map((verb) => {
    let tool = toolOfVerb.get(verb);
    if (tool === undefined) {
      tool = { type: 'function', function: { name: toolNameOf(verb.name), description: modelDescriptionOf(verb), parameters: inputSchemaOf(verb) } };
      toolOfVerb.set(verb, tool);
    }
    return tool;
  });
}
