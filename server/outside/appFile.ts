/**
 * An outside app's file, `server/apps/<app>.md`: YAML front matter naming an MCP server (`mcp:`) or
 * an OpenAPI spec (`openapi:`), which of its tools or operations the app offers (an allow-list), and
 * how; then a description, which is prompt. Read once at start: a file that is wrong refuses the
 * start with a sentence naming the file and the field, as a bot file does.
 *
 * Secrets never live in the file: a header's or an environment variable's value is either plain
 * text or `env:NAME`, read from the server's environment at start (a missing one refuses the start).
 *
 * ```yaml
 * ---
 * mcp:
 *   command: npx                # stdio: Confab starts it, and stops it with itself
 *   args: [mcp-server-everything, stdio]
 *   env: { API_KEY: env:EVERYTHING_KEY }
 *   # or, over Streamable HTTP:
 *   # url: https://mcp.example.com/mcp
 *   # headers: { Authorization: env:CALENDAR_TOKEN }
 * tools: [echo, add]            # openapi: `operations: [getPetById, addPet]`, and
 *                               # `auth: { bearer: env:TOKEN }` or `{ header: api_key, value: env:KEY }`
 * examples: { echo: 'echo hello' }
 * confirm: [add]                # asked first, beside every destructive one
 * deadline: 10                  # seconds, per call (default 10)
 * narrate: { after: [add], with: echo, say: 'The server says {echo}.' }
 * limits: { perMinute: { calls: 30 } }  # the app's own calls over everybody (server/gate.ts)
 * pricePerCallUsd: 0.002          # what one call costs the site (default 0)
 * ---
 * What the app is for, in a sentence or two: the model reads it.
 * ```
 */
import type { OutsideCallAsk } from '../verbs/verb';
import { AppFileError } from './appFileError';
import { basename } from 'node:path';
import { parseDocument } from 'yaml';
import { FRONT_MATTER } from '../bots';
import type { PersonLimits } from '../db/limits';
import { appLimitsOf, pricePerCallOf } from './appLimits';

export { AppFileError };

/**
 * A value from the file: plain text, or the environment variable it names (`env:NAME`), sent after
 * `prefix` (`Bearer `) when one is given; `field` names where the file said it, for a sentence.
 */
export type Secret = { text: string } | { env: string; prefix?: string; field?: string };

interface McpServerSpec {
  /** stdio: the command Confab starts, its arguments (each plain or `env:NAME`) and environment. */
  command?: string;
  args: Secret[];
  env: Record<string, Secret>;
  /** Streamable HTTP: the server's URL (plain, or `env:NAME`) and the headers sent with every request. */
  url?: Secret;
  headers: Record<string, Secret>;
}

interface OpenApiSpec {
  /** A path (relative to the apps folder) or an `https://` URL. */
  spec: string;
  /** The base URL the operations are called on: the file's alone, never the spec's `servers`. */
  server: string;
  /** Headers sent with every call, each plain or `env:NAME`; the file's `auth` among them. */
  headers: Record<string, Secret>;
}

/** What an app file asks to say after a change: a read of its own, worded. */
interface NarrateSpec {
  /** The tools (or operations) it follows, as named in the server or spec. */
  after: string[];
  /** A read-only tool of the same app, called with no arguments. */
  with: string;
  /** The sentence; `{field}` is that field of the read's result (`{count}`: how many items a list has). */
  say: string;
}

interface AppFileCommon {
  /** The app's name: the file's name without `.md`. */
  name: string;
  /** The file, relative to the apps folder (`calendar.md`), as sentences name it. */
  file: string;
  /** The body: what the app is for. */
  description: string;
  /** The allow-list: tool names (MCP) or operationIds (OpenAPI), as the server or spec names them. */
  allowed: string[];
  /** An example phrasing per tool, as a person would say it (the model's example, and the stand-in's phrasing). */
  examples: Record<string, string>;
  /** Tools asked about before they run, beside every destructive one. */
  confirm: string[];
  /**
   * Tools whose `readOnlyHint` is believed (MCP): any other tool that claims to only read is a write.
   * Empty for an OpenAPI file, whose reads are its GET and HEAD operations.
   */
  reads: string[];
  /** Calls may go to loopback, private and link-local addresses (a server on this machine or network). Default false. */
  private: boolean;
  /** The deadline of one call, in ms. */
  deadlineMs: number;
  narrate?: NarrateSpec;
  /** `limits`: the app's own calls per window over everybody (as answers; `appLimits.ts`); unset: none. The gate holds every call to them. */
  limits?: PersonLimits;
  /** `pricePerCallUsd`: what one call costs the site, counted in the windows; default 0. */
  pricePerCallUsd: number;
}

export type AppFile = (AppFileCommon & { kind: 'mcp'; mcp: McpServerSpec }) | (AppFileCommon & { kind: 'openapi'; openapi: OpenApiSpec });

export type McpAppFile = Extract<AppFile, { kind: 'mcp' }>;
export type OpenApiAppFile = Extract<AppFile, { kind: 'openapi' }>;

/** One call's deadline when the file names none, in ms. */
export const OUTSIDE_DEADLINE_MS = 10_000;
/** The longest a file may give, in seconds: a spoken turn cannot wait longer (the registry's own cap). */
const DEADLINE_MAX_S = 60;
const APP_NAME = /^[a-z][a-z0-9_]{0,31}$/;
const TOP_KEYS = ['mcp', 'openapi', 'tools', 'operations', 'examples', 'confirm', 'reads', 'private', 'deadline', 'narrate', 'limits', 'pricePerCallUsd'] as const;
const MCP_KEYS = ['command', 'args', 'env', 'url', 'headers'] as const;
const OPENAPI_KEYS = ['spec', 'server', 'headers', 'auth'] as const;
const AUTH_KEYS = ['bearer', 'header', 'value'] as const;
const NARRATE_KEYS = ['after', 'with', 'say'] as const;
const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
/** Header and variable names whose values are secrets: they must come from the environment. */
const SECRET_NAME = /authorization|cookie|key|token|secret|password|credential/i;
/** A flag whose next argument is a secret (`--api-key`, `-token`). */
const SECRET_FLAG = /^-{1,2}[A-Za-z0-9_.-]*(?:authorization|cookie|key|token|secret|password|passwd|credential)[A-Za-z0-9_.-]*$/i;
/** An argument that sets a secret itself (`--api-key=…`, `TOKEN=…`). */
const SECRET_ASSIGNMENT = /^-{0,2}[A-Za-z0-9_.-]*(?:authorization|cookie|key|token|secret|password|passwd|credential)[A-Za-z0-9_.-]*[=:]\s*(?!env:)\S/i;
/** Shapes of well-known keys: OpenAI/Stripe `sk-`, GitHub `ghp_`, Slack `xox…-`, AWS `AKIA…`, Google `AIza…`, GitLab `glpat-`, a bearer token. */
const KNOWN_KEY = /(?:^|[^A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{16,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|Bearer\s+\S{8,})/;

type Fields = Record<string, unknown>;

/** Parses one app file's text; `file` is its name in the apps folder (`calendar.md`). */
export function parseAppFile(file: string, text: string): AppFile {
  const name = basename(file, '.md');
  if (!APP_NAME.test(name)) throw new AppFileError(file, 'name', `("${name}", the file's name) must be lower-case letters, digits and underscores, starting with a letter.`);
  const match = FRONT_MATTER.exec(text);
  if (match === null) throw new AppFileError(file, 'front matter', 'is missing: the file must start with a `---` line, then YAML fields, then a closing `---` line, then what the app is for.');
  const document = parseDocument(match[1] ?? '', { uniqueKeys: true });
  const [yamlError] = document.errors;
  if (yamlError !== undefined) throw new AppFileError(file, 'front matter', `is not valid YAML: ${yamlError.message}`, { cause: yamlError });
  const fields = mapping(file, 'front matter', document.toJS({ maxAliasCount: 50 }) ?? {}, TOP_KEYS, '');
  const description = (match[2] ?? '').trim();
  if (description === '') throw new AppFileError(file, 'description', '(the text after the front matter) is empty; say in a sentence what the app is for: the model reads it.');

  if ((fields.mcp === undefined) === (fields.openapi === undefined)) throw new AppFileError(file, 'front matter', 'must name exactly one of `mcp:` (an MCP server) or `openapi:` (a spec).');
  const kind = fields.mcp !== undefined ? 'mcp' : 'openapi';
  const listField = kind === 'mcp' ? 'tools' : 'operations';
  const wrongList = kind === 'mcp' ? 'operations' : 'tools';
  if (fields[wrongList] !== undefined) throw new AppFileError(file, wrongList, `is for ${kind === 'mcp' ? 'an OpenAPI spec' : 'an MCP server'}; this file names ${kind === 'mcp' ? 'an MCP server: list its `tools`' : 'a spec: list its `operations`'}.`);
  const allowed = strings(file, listField, fields[listField]);
  if (allowed === undefined || allowed.length === 0) throw new AppFileError(file, listField, `is missing: list the ${kind === 'mcp' ? 'tools' : 'operationIds'} the app offers (only those are offered).`);
  const examples = stringMap(file, 'examples', fields.examples);
  for (const tool of Object.keys(examples)) if (!allowed.includes(tool)) throw new AppFileError(file, `examples.${tool}`, `names a ${listField === 'tools' ? 'tool' : 'operation'} not in \`${listField}\`.`);
  const confirm = strings(file, 'confirm', fields.confirm) ?? [];
  for (const tool of confirm) if (!allowed.includes(tool)) throw new AppFileError(file, 'confirm', `names "${tool}", which is not in \`${listField}\`.`);
  const reads = strings(file, 'reads', fields.reads) ?? [];
  if (kind === 'openapi' && reads.length > 0) throw new AppFileError(file, 'reads', 'is for an MCP server; an operation reads when it is a GET or HEAD.');
  for (const tool of reads) if (!allowed.includes(tool)) throw new AppFileError(file, 'reads', `names "${tool}", which is not in \`${listField}\`.`);
  if (fields.private !== undefined && typeof fields.private !== 'boolean') throw new AppFileError(file, 'private', 'must be true or false: true lets calls go to this machine or a private network.');
  const common: AppFileCommon = { name, file, description, allowed, examples, confirm, reads, private: fields.private === true, deadlineMs: deadlineOf(file, fields.deadline), pricePerCallUsd: pricePerCallOf(file, fields.pricePerCallUsd) };
  const limits = appLimitsOf(file, fields.limits);
  if (limits !== undefined) common.limits = limits;
  const narrate = narrateOf(file, fields.narrate, allowed, listField);
  if (narrate !== undefined) common.narrate = narrate;
  return kind === 'mcp' ? { ...common, kind, mcp: mcpOf(file, fields.mcp) } : { ...common, kind, openapi: openApiOf(file, fields.openapi) };
}

/** `secret`'s value from `env`; throws naming the field when the variable is not set. */
export function secretValue(file: string, field: string, secret: Secret, env: Readonly<Record<string, string | undefined>>): string {
  if ('text' in secret) return secret.text;
  const value = env[secret.env];
  if (value === undefined || value === '') throw new AppFileError(file, secret.field ?? field, `names the environment variable ${secret.env}, which is not set; set it where the server starts.`);
  return `${secret.prefix ?? ''}${value}`;
}

/** Every secret of `secrets` from `env`, by name. */
export function secretValues(file: string, field: string, secrets: Readonly<Record<string, Secret>>, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([key, secret]) => [key, secretValue(file, `${field}.${key}`, secret, env)]));
}

function mcpOf(file: string, value: unknown): McpServerSpec {
  const fields = mapping(file, 'mcp', value, MCP_KEYS, 'mcp.');
  const command = text(file, 'mcp.command', fields.command);
  const url = text(file, 'mcp.url', fields.url);
  if ((command === undefined) === (url === undefined)) throw new AppFileError(file, 'mcp', 'must give either `command` (a server Confab starts, over stdio) or `url` (one over Streamable HTTP), not both.');
  const args = (strings(file, 'mcp.args', fields.args, false) ?? []).map((arg, i, all) => literalOrEnv(file, `mcp.args[${String(i)}]`, arg, all[i - 1]));
  const spec: McpServerSpec = { args, env: secrets(file, 'mcp.env', fields.env), headers: secrets(file, 'mcp.headers', fields.headers) };
  if (command !== undefined) spec.command = command;
  if (url !== undefined) spec.url = urlOf(file, 'mcp.url', url);
  if (url !== undefined && (spec.args.length > 0 || Object.keys(spec.env).length > 0)) throw new AppFileError(file, 'mcp', '`args` and `env` are for a server Confab starts (`command`); a server at a `url` takes `headers`.');
  if (command !== undefined && Object.keys(spec.headers).length > 0) throw new AppFileError(file, 'mcp.headers', 'are for a server at a `url`; a server Confab starts takes `env`.');
  return spec;
}

/** A URL from the file: `env:NAME`, or an http(s) address with no credentials and no secret in its query. */
function urlOf(file: string, field: string, said: string): Secret {
  const ref = ENV_REF.exec(said);
  if (ref?.[1] !== undefined) return { env: ref[1], field };
  if (!/^https?:\/\//.test(said)) throw new AppFileError(file, field, 'is not an http:// or https:// address; give the server\'s address, or `env:NAME` to read it from the server\'s environment.');
  let url: URL;
  try {
    url = new URL(said);
  } catch (error) {
    throw new AppFileError(file, field, 'is not an address that parses; give the server\'s http:// or https:// address.', { cause: error });
  }
  const secretQuery = [...url.searchParams].some(([name, value]) => SECRET_NAME.test(name) || looksSecret(value));
  if (url.username !== '' || url.password !== '' || secretQuery) throw new AppFileError(file, field, 'holds a secret (a user name, a password or a key in its query), which is never written in the app file: give the whole address as `env:NAME`.');
  return { text: said };
}

/**
 * One of `mcp.args`: `env:NAME`, or plain text that does not look like a secret — a known key's
 * shape (`sk-…`, `ghp_…`), `--api-key=…`, the value after a flag named like one (`--token …`), or a
 * long run of mixed letters and digits. Such a literal refuses the start: secrets never live in the file.
 */
function literalOrEnv(file: string, field: string, arg: string, before: string | undefined): Secret {
  const ref = ENV_REF.exec(arg);
  if (ref?.[1] !== undefined) return { env: ref[1], field };
  const afterSecretFlag = before !== undefined && SECRET_FLAG.test(before) && !arg.startsWith('-');
  if (afterSecretFlag || looksSecret(arg) || SECRET_ASSIGNMENT.test(arg)) {
    throw new AppFileError(file, field, 'looks like a secret, which is never written in the app file: give that argument as `env:NAME`, set where the server starts.');
  }
  return { text: arg };
}

/** Known shapes of keys and tokens, and long runs of mixed-case letters and digits. */
function looksSecret(value: string): boolean {
  if (KNOWN_KEY.test(value)) return true;
  return (value.match(/[A-Za-z0-9_-]{32,}/g) ?? []).some((run) => /[0-9]/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run));
}

function openApiOf(file: string, value: unknown): OpenApiSpec {
  const fields = mapping(file, 'openapi', value, OPENAPI_KEYS, 'openapi.');
  const spec = text(file, 'openapi.spec', fields.spec);
  if (spec === undefined) throw new AppFileError(file, 'openapi.spec', 'is missing: give the spec as a file beside this one or an https:// URL.');
  if (/^http:\/\//.test(spec)) throw new AppFileError(file, 'openapi.spec', `is "${spec}"; a spec read over the network must be https://.`);
  const server = text(file, 'openapi.server', fields.server);
  // The file says where the site's key is sent, never the spec: a spec's `servers` are not read.
  if (server === undefined) throw new AppFileError(file, 'openapi.server', 'is missing: give the API\'s base URL (https://…); the site\'s credentials go only where the file says, never where the spec\'s `servers` point.');
  if (!/^https?:\/\//.test(server)) throw new AppFileError(file, 'openapi.server', `is "${server}"; give the API's http:// or https:// base URL.`);
  const base = new URL(server);
  if (base.username !== '' || base.password !== '' || base.search !== '') throw new AppFileError(file, 'openapi.server', 'holds a user name, a password or a query; give the base URL alone, and credentials in `auth` as `env:NAME`.');
  return { spec, server, headers: { ...secrets(file, 'openapi.headers', fields.headers), ...authOf(file, fields.auth) } };
}

/** `auth:` as the header it sends: `{ bearer: env:NAME }` (Authorization: Bearer …) or `{ header: NAME, value: env:NAME }`. */
function authOf(file: string, value: unknown): Record<string, Secret> {
  if (value === undefined) return {};
  const fields = mapping(file, 'openapi.auth', value, AUTH_KEYS, 'openapi.auth.');
  const ref = (field: string, given: unknown) => {
    const match = typeof given === 'string' ? ENV_REF.exec(given.trim()) : null;
    if (match?.[1] === undefined) throw new AppFileError(file, field, 'must name the environment variable that holds the credential (`env:NAME`): a secret is never written in the app file.');
    return match[1];
  };
  if (fields.bearer !== undefined) {
    if (fields.header !== undefined || fields.value !== undefined) throw new AppFileError(file, 'openapi.auth', 'takes either `bearer` or `header` and `value`, not both.');
    return { Authorization: { env: ref('openapi.auth.bearer', fields.bearer), prefix: 'Bearer ', field: 'openapi.auth.bearer' } };
  }
  const header = text(file, 'openapi.auth.header', fields.header);
  if (header === undefined || fields.value === undefined) throw new AppFileError(file, 'openapi.auth', 'needs `bearer: env:NAME`, or `header` (its name) and `value: env:NAME`.');
  return { [header]: { env: ref('openapi.auth.value', fields.value), field: 'openapi.auth.value' } };
}

function narrateOf(file: string, value: unknown, allowed: readonly string[], listField: string): NarrateSpec | undefined {
  if (value === undefined) return undefined;
  const fields = mapping(file, 'narrate', value, NARRATE_KEYS, 'narrate.');
  const after = strings(file, 'narrate.after', fields.after);
  const read = text(file, 'narrate.with', fields.with);
  const say = text(file, 'narrate.say', fields.say);
  if (after === undefined || after.length === 0 || read === undefined || say === undefined) throw new AppFileError(file, 'narrate', 'needs `after` (the tools it follows), `with` (a read-only tool of this app) and `say` (the sentence).');
  for (const tool of [...after, read]) if (!allowed.includes(tool)) throw new AppFileError(file, 'narrate', `names "${tool}", which is not in \`${listField}\`.`);
  return { after, with: read, say };
}

function deadlineOf(file: string, value: unknown): number {
  if (value === undefined) return OUTSIDE_DEADLINE_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > DEADLINE_MAX_S) {
    throw new AppFileError(file, 'deadline', `is ${JSON.stringify(value)}; give the seconds one call may take, above 0 and at most ${DEADLINE_MAX_S}.`);
  }
  return Math.round(value * 1000);
}

function mapping(file: string, field: string, value: unknown, keys: readonly string[], prefix: string): Fields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AppFileError(file, field, 'must be a mapping of fields.');
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw new AppFileError(file, `${prefix}${key}`, `is not a field here; the fields are: ${keys.join(', ')}.`);
  }
  return value as Fields;
}

function text(file: string, field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new AppFileError(file, field, 'must be a non-empty string.');
  return value.trim();
}

/** A list of names, each once; `names` false: a list of strings as they are (a command's arguments, in order, repeats kept). */
function strings(file: string, field: string, value: unknown, names = true): string[] | undefined {
  if (value === undefined) return undefined;
  if (!names && Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) return value.map(String);
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) throw new AppFileError(file, field, names ? 'must be a list of names.' : 'must be a list of strings.');
  return [...new Set((value as string[]).map((item) => item.trim()))];
}

function stringMap(file: string, field: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  const fields = mapping(file, field, value, Object.keys(value as object), `${field}.`);
  return Object.fromEntries(Object.entries(fields).map(([key, item]) => [key, text(file, `${field}.${key}`, item) ?? '']));
}

function secrets(file: string, field: string, value: unknown): Record<string, Secret> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AppFileError(file, field, 'must be a mapping of names to values (plain, or `env:NAME`).');
  const out: Record<string, Secret> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string' && typeof item !== 'number') throw new AppFileError(file, `${field}.${key}`, 'must be a string: plain, or `env:NAME` to read it from the server’s environment.');
    const said = String(item);
    const ref = ENV_REF.exec(said);
    if (ref?.[1] === undefined && SECRET_NAME.test(key)) throw new AppFileError(file, `${field}.${key}`, 'holds a secret, which is never written in the app file: name the environment variable that holds it (`env:NAME`).');
    out[key] = ref?.[1] !== undefined ? { env: ref[1] } : { text: said };
  }
  return out;
}

/**
 * One call of `file`'s app as the gate admits it: its windows, its price, and whether it is made
 * with the site's credentials — any value the file reads from the server's environment (`env:NAME`
 * in `headers`, `auth`, `env`, `args` or `url`), which is then called only with `AGENTS_LIVE=1`.
 */
export function outsideCallOf(file: AppFile): OutsideCallAsk {
  const secrets: Secret[] =
    file.kind === 'mcp'
      ? [...Object.values(file.mcp.env), ...Object.values(file.mcp.headers), ...file.mcp.args, ...(file.mcp.url === undefined ? [] : [file.mcp.url])]
      : Object.values(file.openapi.headers);
  return {
    app: file.name,
    ...(file.limits === undefined ? {} : { limits: file.limits }),
    pricePerCallUsd: file.pricePerCallUsd,
    credentialed: secrets.some((secret) => 'env' in secret),
  };
}
