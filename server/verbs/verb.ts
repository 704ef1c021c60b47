/**
 * What an app contributes: verbs (`<app>.<verb>`), each one object — name, description, example
 * phrase, Zod input and output, risk, deadline, handler — and narrators that say the consequence of
 * a verb after it has run. The OpenAI `tools` list and the MCP `tools/list` are projections of
 * these objects; the executor (`executor.ts`) is the only caller of `run`.
 *
 * An app is a folder, `server/apps/<app>/index.ts`, whose default export is an `App`. The registry
 * finds the folders at start; nothing else in Confab names an app.
 */
import type { z } from 'zod';
import type { PersonLimits } from '../db/limits';
import type { Queryable } from '../db/queryable';
import type { PersonKind } from '../person';
import type { Words } from '../words/words';

/**
 * How much a verb can change:
 * - `read`: nothing; it may be cancelled at any moment;
 * - `write`: adds or changes something; takes an idempotency key, and once started runs to completion;
 * - `destructive`: removes what cannot be had back; a write, and the ones a person is asked about.
 */
export type Risk = 'read' | 'write' | 'destructive';

export const RISKS: readonly Risk[] = ['read', 'write', 'destructive'];

/** Who is calling, as the server established it: never a value taken from a request body. */
export interface Caller {
  /** The person the call acts for; every query runs as them, under row level security. */
  person: string;
  /** The bot the call is made through (over MCP: the bot the token names for this call). */
  bot: string;
  /** Which door the call came in by, for the log and for policy. */
  via: 'model' | 'mcp' | 'person';
  /**
   * How the person is known (`server/person.ts`): a bare cookie may not make schedules and long
   * runs unless the bot's `work:` says anyone. Unset where no request of theirs made the call: read
   * as a bare cookie.
   */
  kind?: PersonKind;
  /** The person's IANA time zone, as their page reports it; `UTC` when unknown. */
  timeZone: string;
  /**
   * The language the person is speaking to the bot in (the page's setting, resolved against the
   * bot's languages); unset where nobody is speaking (MCP): the bot's own.
   */
  language?: string;
  /**
   * The turn the call is part of (its turn key), for policy that counts over a whole turn rather
   * than one call (`memory.forget`); unset outside a turn (MCP, an approval, a run).
   */
  turn?: string;
}

/** What a handler needs that is not its input: who, when, the person's transaction, a signal. */
export interface VerbContext extends Caller {
  /**
   * Aborted at the verb's deadline or when the caller gives up (barge-in, an MCP cancel). A read
   * stops when it fires; a write that has started ignores it and runs to completion.
   */
  signal: AbortSignal;
  /** Now, in ms since the epoch, as the executor read it when the call started. */
  nowMs: number;
  /**
   * The person's own transaction (`asPerson`): row level security confines every query in it. For a
   * write the executor records the idempotency key in this same transaction, so the effect and its
   * key commit together or not at all.
   */
  tx: Queryable;
  /** What the server offers apps beyond the database. */
  services: AppServices;
  /** What the verb's `prepare` answered, when it has one. */
  prepared?: unknown;
  /** The page's key for the conversation the call was made in, when it names one. */
  conversationKey?: string;
  /** A write's idempotency key, for a remote verb to pass on (OpenAPI's `Idempotency-Key`); unset for a read. */
  idempotencyKey?: string;
  /**
   * What a remote verb may spend, admitted by the one gate (`server/gate.ts`): given by the executor
   * to remote verbs only. An outside tool is called only through it (`effectsIn`).
   */
  effects?: CallerEffects;
}

/** What `confirm` and `ask` are given: who is calling, now, and the person's own transaction. */
/** What a `confirm` function is given: the caller, their transaction and the time. */
export type ConfirmContext = Caller & { tx: Queryable; nowMs: number };
/** What `ask` is given: that, and the words of the person's language to ask in. */
export type AskContext = ConfirmContext & { words: Words };

/** What `prepare` is given: everything but the transaction, which is not open yet. */
export type PrepareContext = Omit<VerbContext, 'tx' | 'prepared'>;

/**
 * What the server hands apps beyond the database. The contract names none of it: an app that needs
 * a service declares it beside itself, and the server, which builds this object, must then give it
 * (as Hono's `ContextVariableMap`):
 *
 *     declare module '../../verbs/verb' {
 *       interface AppServices {
 *         embedder: Embedder;
 *       }
 *     }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the apps that use it (declaration merging)
export interface AppServices {}

/** What one outside call is, as the app file says it. */
export interface OutsideCallAsk {
  app: string;
  /** The file's `limits`, calls per window (as answers); unset: none of its own. */
  limits?: PersonLimits;
  /** The file's `pricePerCallUsd`; 0 when unset. */
  pricePerCallUsd: number;
  /** Whether the app is called with a credential from the server's environment (the site's key). */
  credentialed: boolean;
}

/** An outside call admitted: settle it once the call has been made, however it ended. */
export interface OutsidePass {
  settle(): Promise<void>;
}

/**
 * What a verb's handler is given to spend: outside calls for this caller, admitted by the one gate
 * (`server/gate.ts`). The only way an outside tool is called (`outsideVerb.ts` asks it first; without
 * it, nothing goes out).
 */
export interface CallerEffects {
  /** Admits one call of `tool`; throws a `VerbError` with the refusal's sentence when the gate says no. */
  outsideCall(ask: OutsideCallAsk, tool: string): Promise<OutsidePass>;
}

/** How the stand-in (no model bought) recognises one of a verb's plain phrasings. */
export interface StandInPhrasing<I> {
  /** Tested against the person's last line, lower-cased and trimmed of end punctuation. */
  pattern: RegExp;
  /** The verb's input from the match. */
  input: (match: RegExpExecArray) => I;
}

// The handler's types come from the schemas; a verb's `I` and `O` are Zod object schemas.
export interface Verb<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** `<app>.<verb>`: lower-case letters, digits and underscores on each side of the dot. */
  name: string;
  /** What it does, for the model and for MCP clients: one or two plain sentences. */
  description: string;
  /** A phrase a person might say that calls it ("add milk to my shopping list"). */
  example: string;
  /** The arguments: a Zod object. Its JSON Schema is what the model and MCP clients see. */
  input: I;
  /** The result: a Zod object. Validated before it leaves the executor. */
  output: O;
  risk: Risk;
  /** Longest the handler may take, in ms, before the call ends `timed_out`. */
  deadlineMs: number;
  /** In every turn's scope, whatever the bot's apps. Default false. */
  always?: boolean;
  /**
   * Never run on a model's say-so: the person approves the call in the page first. `true`: every
   * call. A function: the calls it answers true for, from the input and the person's rows (through
   * `context.tx`). The executor decides it as policy, in the person's transaction the handler would
   * run in and just before it would, so what it counted is what the handler finds; a call the person
   * approved is not asked about again. Default false.
   */
  confirm?: boolean | ((input: z.output<I>, context: ConfirmContext) => Promise<boolean>);
  /** For a `confirm` verb: the question the person is asked, without "Say yes or no." */
  ask?: (input: z.output<I>, context: AskContext) => string | Promise<string>;
  /**
   * For a verb whose `confirm` is a function: the input as the question fixes it, made when the
   * executor decides to ask, in the same transaction (the memories it would forget, by id). The
   * pending action keeps this input, so `ask` names, and a yes runs, exactly what was counted —
   * never a recount into another set. Must pass the verb's own `input` schema.
   */
  pin?: (input: z.output<I>, context: ConfirmContext) => Promise<z.output<I>>;
  /**
   * For a verb that counts what a whole turn does (`memory.forget`: how many memories the turn would
   * forget): the inputs of its calls in one model step, as one input. The acting loop runs them as
   * that one call, before any of them runs alone, so the step asks once — counting them all, naming
   * them all — rather than running the first and asking at the second. Must pass the verb's own
   * `input` schema.
   */
  gather?: (inputs: readonly z.output<I>[]) => z.output<I>;
  /**
   * Whether this call of a write changes more than one thing (every schedule, a whole list, every
   * matching reminder): such a call is asked about first, always — the executor's risk rule, so no
   * app has to remember. Answered from the input and the person's rows (through `context.tx`), in
   * the transaction the handler would run in, as `confirm` is. Requires `ask`.
   */
  changesMany?: (input: z.output<I>, context: ConfirmContext) => boolean | Promise<boolean>;
  /**
   * Work done before the person's transaction opens — a network call such as an embedding — so no
   * transaction (on PGlite: every other request) waits on it. Its answer reaches `run` as
   * `context.prepared`. It has the caller's signal whatever the risk: nothing has been written yet.
   */
  prepare?: (input: z.output<I>, context: PrepareContext) => Promise<unknown>;
  /** Does the work. Throws to fail (`execution_failed`); its message is never shown. */
  run: (input: z.output<I>, context: VerbContext) => Promise<z.input<O>>;
  /**
   * Its handler calls out of the server (an outside app's: an MCP server, an HTTP API), so it runs
   * outside the person's transaction (`context.tx` refuses every query), with the caller's signal
   * for a read and its deadline for a write. A write's key is claimed before the call and its result
   * recorded after, so a retried turn gets the recorded result instead of a second call.
   */
  remote?: true;
  /**
   * The schemas as the outside app gave them (JSON Schema, 2020-12), when it did: what the model
   * sees instead of `input`'s projection. `input` and `output` still validate, with Ajv.
   */
  jsonSchema?: { input: Record<string, unknown>; output?: Record<string, unknown> };
  /** How the stand-in calls it and words its result; a verb without one is never called by the stand-in. */
  standIn?: {
    phrasings: readonly StandInPhrasing<z.input<I>>[];
    /**
     * The sentence the stand-in says for a result; `words` are the turn's or the run's, and
     * `language` the tag they are in (for what `Intl` words: a list joined with "and"), both unset
     * where nobody's language is known.
     */
    say: (output: z.output<O>, input: z.output<I>, words?: Words, language?: string) => string;
  };
}

/** Whether the person is asked before a verb runs: on every call, on some (`confirm` a function), or never. */
export function asksFirst(verb: Pick<Verb, 'confirm' | 'changesMany'>): 'always' | 'sometimes' | 'never' {
  if (verb.confirm === true) return 'always';
  return typeof verb.confirm === 'function' || verb.changesMany !== undefined ? 'sometimes' : 'never';
}

/** One verb call that succeeded, as a narrator sees it. */
export interface Ran {
  verb: string;
  input: unknown;
  output: unknown;
}

/**
 * Says the consequence of a verb after it succeeded ("That's 5 things on your shopping list."):
 * cheap reads only, a short sentence, never new work. Runs under a 300 ms deadline; a failure or
 * a late answer is dropped and the conversation goes on.
 */
export interface Narrator {
  /** The verb it follows: exact (`lists.add`) or every verb of an app (`lists.*`). */
  follows: string;
  /** Its read calls out of the server (an outside app's): it runs outside the person's transaction, as a remote verb does. */
  remote?: true;
  narrate: (ran: Ran, context: VerbContext) => Promise<string | undefined>;
}

/**
 * Whether an app can be used now, for its operator (the log, `GET /api/health`, the verbs listing):
 * up; starting or closed; or away — an outside app's server — with why (a clause naming the file,
 * command or address to mend, never a secret) and the wait before it is tried again, in ms.
 */
export type AppStatus = { up: true } | { up: false; state: 'starting' | 'closed' } | { up: false; state: 'away'; why: string; retryInMs: number };

export interface App {
  /** The folder's (or the app file's) name and the verbs' prefix: lower-case letters, digits and underscores. */
  name: string;
  /** What the app is for, in one sentence (for `GET /api/bots/<bot>/verbs`). */
  description: string;
  verbs: readonly Verb[];
  narrators?: readonly Narrator[];
  /**
   * Words this person uses with the app that a speech recogniser should expect (a list's name),
   * most used first, read in the person's own transaction (row level security confines it).
   */
  phrases?: (tx: Queryable) => Promise<string[]>;
  /**
   * An outside app (`server/apps/<app>.md`: an MCP server or an OpenAPI spec), which acts with the
   * site's credentials: offered only to bots whose file names it, marked `site` in the verbs
   * listing, and never served over Confab's own `/mcp`.
   */
  outside?: OutsideAppInfo;
}

/** What an outside app says of itself. */
export interface OutsideAppInfo {
  kind: 'mcp' | 'openapi';
  /** The app file, relative to the apps folder (`calendar.md`). */
  file: string;
  /** Whether it can be used now. */
  status(): AppStatus;
  /** Calls `listener` whenever its verbs change (its server came back with other tools); answers the unsubscribe. */
  onVerbsChanged?(listener: () => void): () => void;
  /** Lets its connection go (the server stops): the child process it started, a session. */
  close(): Promise<void>;
}

/** Declares a verb with its types inferred from its schemas. */
export function defineVerb<I extends z.ZodType, O extends z.ZodType>(verb: Verb<I, O>): Verb {
  return verb;
}

/** Declares an app. */
export function defineApp(app: App): App {
  return app;
}
