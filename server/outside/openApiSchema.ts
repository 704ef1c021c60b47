/**
 * An OpenAPI schema (dereferenced by Swagger Parser) as the JSON Schema 2020-12 the verbs are
 * validated in and the model is shown. OpenAPI 3.1's schemas already are JSON Schema; 3.0's speak a
 * dialect of draft 4, whose `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum` and `example`
 * are rewritten here. Both lose the annotations Ajv cannot use (`xml`, `discriminator`,
 * `externalDocs`, `x-…`) and the identifiers that would clash when one schema is compiled into
 * several verbs; a schema that contains itself (a tree of categories) is spelled out three levels
 * deep: below that, anything is accepted.
 *
 * Not `@openapi-contrib/openapi-schema-to-json-schema`: it answers draft 4 (boolean exclusive
 * bounds Ajv 2020 refuses to compile), drops `nullable` where there is no `type` (an `allOf` that
 * may be null), overflows the stack on a schema that contains itself, and brings a CLI's
 * dependencies (yargs, openapi-typescript, prettier) into the server; what was left to write here
 * would have been all of this and more.
 */

/** A JSON Schema, or an OpenAPI schema object, as plain data. */
export type Schema = Record<string, unknown>;

/** The OpenAPI version whose dialect a schema is in. */
export type OpenApiVersion = '3.0' | '3.1';

/** Which way a schema's data travels: a `readOnly` property is not required of a request, nor a `writeOnly` one of an answer. */
export type Direction = 'request' | 'response';

/** Keywords whose value is one schema, a list of schemas, or schemas by name. */
const ONE_SCHEMA = new Set(['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems']);
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** OpenAPI's own annotations, and identifiers that would clash when one schema is compiled into several verbs. */
const DROPPED = new Set(['xml', 'discriminator', 'externalDocs', 'nullable', 'example', '$schema', '$id', '$anchor', '$dynamicAnchor']);

/** How many times a schema that contains itself is spelled out along one path before the rest is accepted unchecked. */
const RECURSION_LEVELS = 3;

/** `schema` (dereferenced, in OpenAPI `version`'s dialect) as JSON Schema 2020-12, travelling `direction`. */
export function toJsonSchema(schema: Schema, version: OpenApiVersion, direction: Direction): Schema {
  return convert(schema, version, direction, new Map());
}

/** `above` counts, per schema object, how often it encloses the one being converted (a dereferenced cycle is the same object again). */
function convert(schema: Schema, version: OpenApiVersion, direction: Direction, above: Map<object, number>): Schema {
  const levels = above.get(schema) ?? 0;
  if (levels >= RECURSION_LEVELS) return { description: 'The same shape as an enclosing one (it recurs); not checked below this depth.' };
  above.set(schema, levels + 1);
  const sub = (value: unknown): unknown => (isSchema(value) ? convert(value, version, direction, above) : value);
  let out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (ONE_SCHEMA.has(key)) out[key] = sub(value);
    else if (SCHEMA_LIST.has(key) && Array.isArray(value)) out[key] = value.map(sub);
    else if (SCHEMA_MAP.has(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, sub(item)]));
    else out[key] = plain(value);
  }
  if (levels === 0) above.delete(schema);
  else above.set(schema, levels);

  if (schema.example !== undefined && out.examples === undefined) out.examples = [plain(schema.example)];
  if (version === '3.0') {
    const bounded = exclusive(exclusive(out, 'exclusiveMinimum', 'minimum'), 'exclusiveMaximum', 'maximum');
    if (schema.nullable === true) return nullable(bounded);
    out = bounded;
  }
  const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
  if (Array.isArray(out.required) && isSchema(schema.properties)) {
    const properties = schema.properties;
    const shown = out.required.filter((name) => {
      const property = typeof name === 'string' ? properties[name] : undefined;
      return !(isSchema(property) && property[hidden] === true);
    });
    if (shown.length > 0) out.required = shown;
    else delete out.required;
  }
  return out;
}

/** 3.0's boolean `exclusiveMinimum: true` (JSON Schema draft 4's way: `minimum` is exclusive) as 2020-12's number. */
function exclusive(out: Schema, flagKey: 'exclusiveMinimum' | 'exclusiveMaximum', boundKey: 'minimum' | 'maximum'): Schema {
  if (typeof out[flagKey] !== 'boolean') return out;
  const { [flagKey]: flag, [boundKey]: bound, ...rest } = out;
  if (flag === true && typeof bound === 'number') return { ...rest, [flagKey]: bound };
  return bound === undefined ? rest : { ...rest, [boundKey]: bound };
}

/** 3.0's `nullable: true` in 2020-12's words: null is one more type (or value) it takes. */
function nullable(out: Schema): Schema {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) out.type = out.type.includes('null') ? out.type : [...(out.type as unknown[]), 'null'];
  else return { anyOf: [out, { type: 'null' }] };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** A value from the spec as JSON has it: YAML's dates become their ISO text. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}
