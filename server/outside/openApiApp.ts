/**
 * An OpenAPI app (`server/apps/<app>.md` with `openapi:`): its spec read once at start
 * (`openApiSpec.ts`), each allowed operation made one verb of the registry (`openApiOperation.ts`
 * gives its schemas and risk, `outsideVerb` makes it a verb) that calls the API when run
 * (`openApiCall.ts`). An operation that is not in the spec, two that would be one verb, a schema
 * that does not compile or a narrator that is no plain read refuses the start with a sentence
 * naming the file and the field.
 *
 * The call goes to the file's `openapi.server` (required: the spec's `servers` never decide where the
 * site's key is sent), through one guarded fetch shared by the spec's read and every call: no
 * redirect is followed, and a private address is refused unless the file says `private: true`.
 */
import type { App, Narrator, VerbContext } from '../verbs/verb';
import { outsideCall } from '../gate';
import { guardedFetch, systemLookup } from './address';
import { AppFileError, secretValues } from './appFile';
import type { OpenApiAppFile } from './appFile';
import { outsideCallOf } from './appFile';
import type { OutsideDeps } from './loadOutside';
import { callOperation } from './openApiCall';
import type { CallTarget } from './openApiCall';
import { operationOf } from './openApiOperation';
import { readSpec } from './openApiSpec';
import type { Spec } from './openApiSpec';
import { compileSchema, narrationOf, outsideVerb, verbPartOf } from './outsideVerb';
import type { OutsideTool } from './outsideVerb';

/** An operation as an outside tool, and whether its answer is its JSON body itself (else an `Answer`). */
interface Made {
  tool: OutsideTool;
  whole: boolean;
}

/** Reads `file`'s spec and makes its allowed operations an app; throws an `AppFileError` when it cannot. */
export async function openApiApp(file: OpenApiAppFile, deps: OutsideDeps): Promise<App> {
  const fetchFn = guardedFetch(deps.fetch, file.name, file.private, deps.lookup ?? systemLookup);
  const target: CallTarget = { base: file.openapi.server, headers: secretValues(file.file, 'openapi.headers', file.openapi.headers, deps.env), fetchFn };
  const spec = await readSpec(file, deps.appsDir, fetchFn);
  const tools = toolsOf(file, spec, target);
  const verbs = [...tools.values()].map(({ tool }) => outsideVerb(file, tool));
  const narrators = narratorsOf(file, tools);
  deps.log({ event: 'outside.openapi.read', app: file.name, operations: verbs.length });
  return {
    name: file.name,
    description: file.description,
    verbs,
    ...(narrators.length > 0 ? { narrators } : {}),
    outside: {
      kind: 'openapi',
      file: file.file,
      // The spec was read at start; whether the API answers is each call's to find out.
      status: () => ({ up: true }),
      close: () => Promise.resolve(),
    },
  };
}

/** The file's allowed operations as tools, by operationId, in the file's order. */
function toolsOf(file: OpenApiAppFile, spec: Spec, target: CallTarget): Map<string, Made> {
  const sent = new Set(Object.keys(target.headers).map((name) => name.toLowerCase()));
  const tools = new Map<string, Made>();
  for (const id of file.allowed) {
    const found = spec.operations.get(id);
    if (found === undefined) {
      const known = [...spec.operations.keys()];
      const listed = known.length > 12 ? `${known.slice(0, 12).join(', ')}…` : known.join(', ');
      throw new AppFileError(file.file, 'operations', `names "${id}", which is not an operationId in ${file.openapi.spec}${known.length > 0 ? ` (it has: ${listed})` : ''}.`);
    }
    const twin = [...tools.keys()].find((other) => verbPartOf(other) === verbPartOf(id));
    if (twin !== undefined) throw new AppFileError(file.file, 'operations', `names "${twin}" and "${id}", which would both be the verb ${file.name}.${verbPartOf(id)}; keep one.`);
    const operation = operationOf(file, id, found, spec.version, sent);
    const { description, inputSchema, outputSchema, risk } = operation;
    tools.set(id, {
      tool: { tool: id, description, inputSchema, outputSchema, risk, call: (input, signal, key) => callOperation(operation, target, input, signal, key) },
      whole: operation.whole,
    });
  }
  return tools;
}

/**
 * The file's `narrate` as narrators: after each operation in `after`, the read `with` is called
 * with no arguments and `say` filled from its JSON answer — `{field}` (or `{a.b}`) is that field,
 * `{count}` an array's length (or the answer's own `count`). A field the answer lacks says nothing.
 */
function narratorsOf(file: OpenApiAppFile, tools: ReadonlyMap<string, Made>): Narrator[] {
  const spec = file.narrate;
  if (spec === undefined) return [];
  const made = tools.get(spec.with);
  if (made === undefined) return [];
  const read = made.tool;
  if (read.risk !== 'read') throw new AppFileError(file.file, 'narrate.with', `names "${spec.with}", which changes something; a narrator only reads (GET).`);
  if (!compileSchema(file, `operations.${spec.with} (its input schema)`, read.inputSchema)({})) {
    throw new AppFileError(file.file, 'narrate.with', `names "${spec.with}", which needs arguments; a narrator calls it with none.`);
  }
  const calls = outsideCallOf(file);
  // The narrator's read is an outside call like any other: admitted by the one gate (server/gate.ts).
  const say = async (context: VerbContext): Promise<string | undefined> => {
    const answer = await outsideCall(context, calls, spec.with, () => read.call({}, context.signal));
    return narrationOf(spec.say, made.whole ? answer : answer.body);
  };
  return spec.after.map((tool) => ({ follows: `${file.name}.${verbPartOf(tool)}`, remote: true, narrate: (_ran, context) => say(context) }));
}
