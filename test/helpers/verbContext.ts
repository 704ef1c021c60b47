/**
 * Running an app's verbs in tests the way the executor does — input parsed by the verb's schema,
 * `run` in the person's own transaction, output parsed — without the executor, so an app is tested
 * on its own. Also the stand-in's matching of a line to a phrasing, and narrators after a verb.
 */
import { z } from 'zod';
import { recognise } from '../../server/chat/standInModel';
import type { Database } from '../../server/db/database';
import type { Queryable } from '../../server/db/queryable';
import { hashEmbedder } from '../../server/memory/embed';
import { shippedWords } from '../../server/words/loadWords';
import type { Embedder } from '../../server/memory/embed';
import type { App, Caller, Verb, VerbContext } from '../../server/verbs/verb';

export interface CallOptions {
  person: string;
  /** Default `demo`. */
  bot?: string;
  /** Default `UTC`. */
  timeZone?: string;
  /** Default 2026-12-01T15:05:00Z, a Tuesday. */
  nowMs?: number;
  /** Default `model`. */
  via?: Caller['via'];
  /** Default the hash embedder. */
  embedder?: Embedder;
  signal?: AbortSignal;
  /** The language the person speaks in; default none (MCP: the app's English). */
  language?: string;
}

/** Tuesday 1 December 2026, 15:05:00 UTC. */
export const TUESDAY_MS = Date.UTC(2026, 11, 1, 15, 5, 0);

export function verbContext(tx: Queryable, options: CallOptions): VerbContext {
  return {
    person: options.person,
    bot: options.bot ?? 'demo',
    via: options.via ?? 'model',
    timeZone: options.timeZone ?? 'UTC',
    signal: options.signal ?? new AbortController().signal,
    nowMs: options.nowMs ?? TUESDAY_MS,
    tx,
    services: { embedder: options.embedder ?? hashEmbedder },
    ...(options.language === undefined ? {} : { language: options.language }),
  };
}

/** The verb of `app` called `name`; throws when there is none. */
export function verbOf(app: App, name: string): Verb {
  const verb = app.verbs.find((v) => v.name === name);
  if (verb === undefined) throw new Error(`${app.name} has no verb ${name}.`);
  return verb;
}

/** Calls a verb as the executor would and answers its parsed output; rejects as `run` does. */
export async function callVerb(db: Database, app: App, name: string, input: unknown, options: CallOptions): Promise<unknown> {
  const verb = verbOf(app, name);
  const parsed: unknown = verb.input.parse(input);
  const output = await db.asPerson(options.person, (tx) => verb.run(parsed, verbContext(tx, options)));
  return verb.output.parse(output);
}

/**
 * The question the person would be asked before `name` runs with `input`, without "Say yes or no."
 * (its `ask`, in their transaction), or undefined when this call is not asked about: never for a
 * verb that does not confirm, always for `confirm: true`, when its `confirm` answers true for one
 * that decides per call.
 */
export async function askedFirst(db: Database, app: App, name: string, input: unknown, options: CallOptions): Promise<string | undefined> {
  const verb = verbOf(app, name);
  const parsed: unknown = verb.input.parse(input);
  return db.asPerson(options.person, async (tx) => {
    const context = verbContext(tx, options);
    const asks = verb.confirm === true || (typeof verb.confirm === 'function' && (await verb.confirm(parsed, context)));
    return asks ? verb.ask?.(parsed, { ...context, words: shippedWords().wordsIn(options.language ?? 'en') }) : undefined;
  });
}

/** The sentences `app`'s narrators say after `verb` succeeded with `input` and `output`. */
export async function narrations(db: Database, app: App, ran: { verb: string; input: unknown; output: unknown }, options: CallOptions): Promise<string[]> {
  const narrators = (app.narrators ?? []).filter((n) => n.follows === ran.verb || n.follows === `${app.name}.*`);
  const said: string[] = [];
  for (const narrator of narrators) {
    const sentence = await db.asPerson(options.person, (tx) => narrator.narrate(ran, verbContext(tx, options)));
    if (sentence !== undefined) said.push(sentence);
  }
  return said;
}

/** The verb and input the door's stand-in would call for a person's line; undefined when none matches. */
export function standInCall(apps: readonly App[], line: string): { verb: string; input: unknown } | undefined {
  const call = recognise(line, apps.flatMap((app) => app.verbs));
  return call === undefined ? undefined : { verb: call.verb.name, input: call.input };
}

/** What the stand-in says for a verb's result. */
export function standInSays(app: App, name: string, output: unknown, input: unknown): string {
  const verb = verbOf(app, name);
  if (verb.standIn === undefined) throw new Error(`${name} has no stand-in.`);
  return verb.standIn.say(output, verb.input.parse(input));
}

/** Each verb's input and output as JSON Schema, as the model and MCP clients are given them. */
export function jsonSchemas(app: App): Record<string, { input: unknown; output: unknown }> {
  return Object.fromEntries(
    app.verbs.map((verb) => [verb.name, { input: z.toJSONSchema(verb.input, { io: 'input' }), output: z.toJSONSchema(verb.output, { io: 'output' }) }]),
  );
}
