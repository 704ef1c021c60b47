/**
 * The registry: every app found in `server/apps/`, their verbs by name and their narrators. Apps
 * are discovered, never listed: a folder with an `index.ts` (or `index.js`) whose default export is
 * an `App` adds its verbs, with no change anywhere else; so does an app file (`<app>.md`, an MCP
 * server or an OpenAPI spec: `server/outside/`), whose verbs may change while the server runs (its
 * MCP server came back with other tools) and are taken in again when they do. A malformed app stops
 * the start with a sentence naming the app and what is wrong, as a malformed bot file does.
 */
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { App, Narrator, Verb } from './verb';
import { RISKS, asksFirst } from './verb';

const APPS_DIR = fileURLToPath(new URL('../apps', import.meta.url));

const APP_NAME = /^[a-z][a-z0-9_]{0,31}$/;
const VERB_NAME = /^([a-z][a-z0-9_]{0,31})\.([a-z][a-z0-9_]{0,31})$/;
/** Longest whole verb name: it travels as an OpenAI function name (`app-verb`), which allows 64 characters. */
const VERB_NAME_MAX = 64;
/** Longest deadline an app may give a verb, in ms: a spoken turn cannot wait longer. */
export const DEADLINE_MAX_MS = 60_000;

export class AppError extends Error {
  override readonly name = 'AppError';
}

export interface Registry {
  readonly apps: readonly App[];
  /** Every verb, in app order then manifest order. */
  readonly verbs: readonly Verb[];
  verb(name: string): Verb | undefined;
  app(name: string): App | undefined;
  /** The narrators that follow `verb`: exact ones and `app.*` ones, in their app's order. */
  narratorsFor(verb: string): readonly Narrator[];
}

/** The app a verb name belongs to: the part before the dot. */
export function appOf(verb: string): string {
  return verb.slice(0, Math.max(0, verb.indexOf('.')));
}

/** A registry over `apps`, checked: names, prefixes, schemas, risks, deadlines, confirmations. */
export function createRegistry(apps: readonly App[]): Registry {
  const appsByName = new Map<string, App>();
  for (const app of apps) {
    if (!APP_NAME.test(app.name)) throw new AppError(`App "${app.name}": its name must be lower-case letters, digits and underscores, starting with a letter.`);
    if (appsByName.has(app.name)) throw new AppError(`Two apps are called "${app.name}"; rename one of them.`);
    appsByName.set(app.name, app);
  }
  let byName = verbsOf(apps);
  let verbs = [...byName.values()];
  for (const app of apps) {
    // An outside app checks its new verbs itself before it offers them (and says why it could not).
    app.outside?.onVerbsChanged?.(() => {
      byName = verbsOf(apps);
      verbs = [...byName.values()];
    });
  }
  return {
    apps,
    get verbs() {
      return verbs;
    },
    verb: (name) => byName.get(name),
    app: (name) => appsByName.get(name),
    narratorsFor(verb) {
      const app = appsByName.get(appOf(verb));
      return (app?.narrators ?? []).filter((n) => n.follows === verb || n.follows === `${app?.name ?? ''}.*`);
    },
  };
}

/** Every app's verbs by name, checked, and each narrator against them. */
function verbsOf(apps: readonly App[]): Map<string, Verb> {
  const byName = new Map<string, Verb>();
  for (const app of apps) {
    for (const verb of app.verbs) {
      checkVerb(app, verb);
      if (byName.has(verb.name)) throw new AppError(`App "${app.name}": the verb ${verb.name} is declared twice.`);
      byName.set(verb.name, verb);
    }
    for (const narrator of app.narrators ?? []) {
      const [prefix, rest] = narrator.follows.split('.');
      if (prefix !== app.name || rest === undefined || (rest !== '*' && !byName.has(narrator.follows))) {
        throw new AppError(`App "${app.name}": a narrator follows "${narrator.follows}", which is neither one of its verbs nor "${app.name}.*".`);
      }
    }
  }
  return byName;
}

/** Checks one verb of `app`; throws an `AppError` naming the verb and what is wrong. */
export function checkVerb(app: Pick<App, 'name'>, verb: Verb): void {
  const where = `App "${app.name}", verb "${verb.name}"`;
  const match = VERB_NAME.exec(verb.name);
  if (match === null || match[1] !== app.name) throw new AppError(`${where}: a verb is named "${app.name}.<verb>" in lower-case letters, digits and underscores.`);
  if (verb.name.length > VERB_NAME_MAX) throw new AppError(`${where}: a verb's whole name is at most ${VERB_NAME_MAX} characters.`);
  if (verb.description.trim() === '' || verb.example.trim() === '') throw new AppError(`${where}: give it a description and an example phrase.`);
  if (!(verb.input instanceof z.ZodObject) || !(verb.output instanceof z.ZodObject)) throw new AppError(`${where}: its input and output must be Zod objects (z.object).`);
  if (!RISKS.includes(verb.risk)) throw new AppError(`${where}: risk must be one of ${RISKS.join(', ')}.`);
  if (!Number.isFinite(verb.deadlineMs) || verb.deadlineMs <= 0 || verb.deadlineMs > DEADLINE_MAX_MS) {
    throw new AppError(`${where}: deadlineMs must be above 0 and at most ${DEADLINE_MAX_MS}.`);
  }
  if (asksFirst(verb) !== 'never' && (verb.risk === 'read' || verb.ask === undefined)) {
    throw new AppError(`${where}: a verb that asks for confirmation must change something (risk write or destructive) and say what it asks (ask).`);
  }
  try {
    z.toJSONSchema(verb.input, { io: 'input' });
    z.toJSONSchema(verb.output, { io: 'output' });
  } catch (error) {
    throw new AppError(`${where}: its schemas cannot be given to a model as JSON Schema (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
  }
}

/** An app folder's entry, in the order it is looked for. */
export const APP_ENTRIES = ['index.js', 'index.ts'] as const;

/**
 * The apps in `dir`: each sub-folder with an `index.js` or `index.ts` whose default export is an
 * app named as its folder. Folders are taken in name order, so the registry's order is stable.
 */
export async function loadApps(dir: string = APPS_DIR): Promise<App[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch (error) {
    throw new AppError(`Cannot read the apps folder ${dir}.`, { cause: error });
  }
  const apps: App[] = [];
  for (const folder of entries) {
    // A compiled `index.js` first: `node` (`npm start`) cannot import TypeScript, tsx can import either.
    const file = APP_ENTRIES.map((name) => join(dir, folder, name)).find((path) => existsSync(path));
    if (file === undefined) continue;
    let module: { default?: App };
    try {
      module = (await import(pathToFileURL(file).href)) as { default?: App };
    } catch (error) {
      throw new AppError(`App folder "${folder}": ${basename(file)} in ${dir} cannot be loaded (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
    }
    const app = module.default;
    if (app === undefined || typeof app !== 'object' || !Array.isArray(app.verbs)) throw new AppError(`App folder "${folder}": index must export an app (defineApp) as its default.`);
    if (app.name !== folder) throw new AppError(`App folder "${folder}": the app inside is called "${app.name}"; name the folder after the app.`);
    apps.push(app);
  }
  return apps;
}
