/**
 * Bot files: `bots/<slug>.md`, YAML front matter between `---` lines and the prompt as the body.
 * Every file is read and checked when the server starts; one invalid file stops the start with a
 * `BotFileError` naming the file, the field and what it accepts, because a bot that half-loads is
 * a bot that silently spends, speaks or remembers other than its file says.
 *
 * ```md
 * ---
 * name: Sage
 * voice: { by: browser, gap: 0.12, visual: halo, voices: [F1, M2], language: en }
 * memory: person+recall
 * limits: { spend: 0.05, perDay: { spend: 1.00 } }
 * for: people
 * ---
 * You are Sage, …
 * ```
 *
 * Unknown keys are refused at every level: a misspelt `limts:` would otherwise be a ceiling that
 * silently never applies.
 */
import { basename } from 'node:path';
import { parseDocument } from 'yaml';
import { BOT_SLUG } from '../common/route';
import { OptionError } from '../common/options';
import { resolveTalk } from '../common/talk';
import type { Talk } from '../common/talk';
import { VOICES } from '../common/voice/style';
import { LANGUAGES_V3 } from '../common/voice/text';
import type { Language } from '../common/voice/text';
import { MEMORY_KINDS, ORB_SHAPES, SPEAKERS } from '../common/bot';
import type { BotVoice, MemoryKind, PublicBot } from '../common/bot';
import { readAudience } from './audience';
import type { Audience } from './audience';
import { LIMIT_WINDOWS, validateLimits } from './db/limits';
import { readMdFolder, unreadable } from './mdFolder';
import { BotFileError, list, mapping, missing, number, oneOf, ranged, text1 } from './botFields';
import type { PersonLimits } from './db/limits';
import { readHears } from './botHears';
import type { Wake } from './botHears';
import { wordsOfMapping, WordsFileError } from './words/words';
import type { SomeWords } from './words/words';

export { ORB_SHAPES } from '../common/bot';
export { BotFileError } from './botFields';
export type { MemoryKind, PublicBot } from '../common/bot';

/**
 * A bot's ceilings, carried in every grant so nothing downstream can raise them: per answer, and
 * per person over the rolling windows the database counts (`db/limits.ts`).
 */
export interface BotLimits extends PersonLimits {
  /** Most model calls for one answer; a whole number from 1 to 64. Default 4. */
  steps: number;
  /** Most spend on one answer, in USD, from 0 to 100. Default 0.05. */
  spend: number;
  /** Longest one answer may take, in minutes, above 0 and up to 60. Default 2. */
  minutes: number;
}

/**
 * Ceilings for a file that names none: a few cents an answer, ten answers a minute, a dollar a
 * day and ten a month per person — a default bot cannot run up a bill. A file that names any
 * window replaces all of these windows with its own (and must cap spend in at least one of them);
 * per-answer fields it leaves out keep these values.
 */
export const DEFAULT_LIMITS: Readonly<BotLimits> = Object.freeze({
  steps: 4,
  spend: 0.05,
  minutes: 2,
  perMinute: Object.freeze({ answers: 10 }),
  perDay: Object.freeze({ spend: 1 }),
  perMonth: Object.freeze({ spend: 10 }),
});

export interface Bot {
  /** The file name without `.md`, and the `/voice/<slug>` path. */
  slug: string;
  /** What a person sees the bot called. */
  name: string;
  /** The file's body: the system prompt. Never leaves the server. */
  prompt: string;
  voice: BotVoice;
  memory: MemoryKind;
  /** The languages a reader may choose from; default `[voice.language]`. */
  languages: Language[];
  limits: BotLimits;
  /** Which configured provider entry the bot is written for; unset: the configured order. */
  provider?: string;
  /** The model to ask that provider for; unset: the provider entry's own. */
  model?: string;
  /** What the bot says first, before anybody speaks. */
  greeting?: string;
  /**
   * The apps whose verbs the bot may use in every turn (beside verbs marked `always` and the apps
   * used last in a conversation). Checked against the apps found at start. Default: none.
   */
  apps: string[];
  /**
   * The skills the bot may open (`skills/<name>.md`), by name, or `all`: every skill there is,
   * including ones added later. Checked against the skills found at start. Default: none.
   */
  skills: string[] | 'all';
  /**
   * The bot's own words by language (its file's `words:`), laid over the site's and the defaults'
   * (`words/<lang>.md`). Default: none.
   */
  words?: Readonly<Record<string, SomeWords>>;
  /** Who may talk to it (`for:`): anyone (default), people, the owner, or the people named (`audience.ts`). */
  for: Audience;
  /** Who may have it make schedules and long runs (`work:`): people (default) or anyone. */
  work: Audience;
  /** What wakes it (`hears:`, `botHears.ts`): each runs for a person only once they allow it. Default: none. */
  hears?: readonly Wake[];
}

const TOP_KEYS = ['name', 'voice', 'memory', 'limits', 'provider', 'model', 'greeting', 'languages', 'apps', 'skills', 'words', 'for', 'work', 'hears'] as const;
const APP_NAME = /^[a-z][a-z0-9_]{0,31}$/;
const VOICE_KEYS = ['by', 'steps', 'opening', 'floor', 'words', 'gap', 'visual', 'voices', 'language'] as const;
const LIMIT_KEYS = ['steps', 'spend', 'minutes', ...LIMIT_WINDOWS] as const;
const WINDOW_KEYS = ['answers', 'spend'] as const;

/** The gap is written in seconds (a conversation's 0.12) and kept in milliseconds. */
const GAP_SECONDS_MAX = 2;
const NAME_CHARS_MAX = 80;
const GREETING_CHARS_MAX = 500;
/** A file of YAML front matter between `---` lines, then a body (a bot's prompt, an app file's description). */
export const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/**
 * Reads every `<slug>.md` in `dir` (`readMdFolder`), keyed by slug; rejects on the first bad file.
 * The files are read synchronously, at start; a promise still, for the callers that await it.
 */
export function loadBots(dir: string): Promise<Map<string, Bot>> {
  return Promise.resolve().then(() => {
    const files = readMdFolder(dir, (path, what, cause) =>
      what === 'folder'
        ? new BotFileError(dir, 'folder', 'cannot be read; the server needs a folder of bot files (`bots/<slug>.md`).', { cause })
        : new BotFileError(path, 'file', unreadable(cause), { cause }),
    );
    const bots = new Map<string, Bot>();
    for (const { path, text } of files) {
      const bot = parseBotFile(path, text);
      bots.set(bot.slug, bot);
    }
    return bots;
  });
}

/** Parses one bot file's text; the slug is the file name without `.md`. */
export function parseBotFile(file: string, text: string): Bot {
  const slug = basename(file, '.md');
  if (!BOT_SLUG.test(slug)) {
    throw new BotFileError(file, 'slug', `"${slug}" (the file name) is not a bot slug: use lower-case letters, digits and single dashes, 1–64 long (e.g. study-buddy.md).`);
  }
  const match = FRONT_MATTER.exec(text);
  if (match === null) {
    throw new BotFileError(file, 'front matter', 'is missing: the file must start with a `---` line, then YAML fields, then a closing `---` line, then the prompt.');
  }
  const document = parseDocument(match[1] ?? '', { uniqueKeys: true });
  const [yamlError] = document.errors;
  if (yamlError !== undefined) {
    throw new BotFileError(file, 'front matter', `is not valid YAML: ${yamlError.message}`, { cause: yamlError });
  }
  const fields = mapping(file, 'front matter', document.toJS({ maxAliasCount: 50 }) ?? {}, TOP_KEYS, '');

  const prompt = (match[2] ?? '').trim();
  if (prompt === '') {
    throw new BotFileError(file, 'prompt', '(the text after the front matter) is empty; write who the bot is and how it answers.');
  }
  const { voice, languages } = readVoice(file, fields.voice, fields.languages);
  const bot: Bot = {
    slug,
    name: text1(file, 'name', fields.name, NAME_CHARS_MAX) ?? missing(file, 'name', 'the name a person sees, as a string'),
    prompt,
    voice,
    memory: oneOf(file, 'memory', fields.memory, MEMORY_KINDS) ?? 'thread',
    languages,
    limits: readLimits(file, fields.limits),
    apps: readApps(file, fields.apps),
    skills: readSkills(file, fields.skills),
    for: readAudience(file, 'for', fields.for),
    work: readAudience(file, 'work', fields.work),
  };
  if (fields.words !== undefined) {
    try {
      bot.words = wordsOfMapping(file, fields.words, languages);
    } catch (error) {
      if (!(error instanceof WordsFileError)) throw error;
      throw new BotFileError(file, error.key, error.message.slice(`${file}: ${error.key} `.length), { cause: error });
    }
  }
  const hears = readHears(file, fields.hears);
  if (hears !== undefined) bot.hears = hears;
  const provider = text1(file, 'provider', fields.provider, 100);
  const model = text1(file, 'model', fields.model, 200);
  const greeting = text1(file, 'greeting', fields.greeting, GREETING_CHARS_MAX);
  if (provider !== undefined) bot.provider = provider;
  if (model !== undefined) bot.model = model;
  if (greeting !== undefined) bot.greeting = greeting;
  return bot;
}

/** What `/api/start` hands the page. */
export function publicBot(bot: Bot): PublicBot {
  const shown: PublicBot = {
    slug: bot.slug,
    name: bot.name,
    voice: { ...bot.voice, voices: [...bot.voice.voices] },
    memory: bot.memory,
    languages: [...bot.languages],
  };
  if (bot.greeting !== undefined) shown.greeting = bot.greeting;
  return shown;
}

function readApps(file: string, value: unknown): string[] {
  const apps = list(file, 'apps', value) ?? [];
  for (const app of apps) {
    if (!APP_NAME.test(app)) throw new BotFileError(file, 'apps', `names "${app}"; an app is named in lower-case letters, digits and underscores, as its folder in server/apps/.`);
  }
  return [...new Set(apps)];
}

const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function readSkills(file: string, value: unknown): string[] | 'all' {
  if (value === 'all') return 'all';
  const skills = list(file, 'skills', value) ?? [];
  for (const skill of skills) {
    if (!SKILL_NAME.test(skill)) throw new BotFileError(file, 'skills', `names "${skill}"; a skill is named as its file skills/<name>.md, in lower-case letters, digits and single dashes — or write skills: all.`);
  }
  return skills;
}

/** Refuses a bot that names a skill nobody wrote: it could never be opened. */
export function checkBotSkills(bots: ReadonlyMap<string, Bot>, written: readonly string[]): void {
  for (const bot of bots.values()) {
    if (bot.skills === 'all') continue;
    const unknown = bot.skills.filter((skill) => !written.includes(skill));
    if (unknown.length > 0) {
      throw new BotFileError(`${bot.slug}.md`, 'skills', `names ${unknown.map((s) => `"${s}"`).join(', ')}, which no file in skills/ is; the skills here are: ${written.join(', ') || 'none'}.`);
    }
  }
}

/** Refuses a bot that names an app nobody installed: its verbs would silently never be offered. */
export function checkBotApps(bots: ReadonlyMap<string, Bot>, installed: readonly string[]): void {
  for (const bot of bots.values()) {
    const unknown = bot.apps.filter((app) => !installed.includes(app));
    if (unknown.length > 0) {
      throw new BotFileError(`${bot.slug}.md`, 'apps', `names ${unknown.map((a) => `"${a}"`).join(', ')}, which no app in server/apps/ provides (a folder, or an app file <app>.md); the apps here are: ${installed.join(', ') || 'none'}.`);
    }
  }
}

/**
 * Refuses the start when a bot's one answer could never fit the site's windows
 * (`CONFAB_SITE_LIMITS`): every answer holds the bot's `limits.spend` while it runs, so a site
 * spend ceiling below it would refuse every answer of that bot, for everybody, for ever.
 */
export function checkBotsFitSite(bots: ReadonlyMap<string, Bot>, site: PersonLimits | undefined): void {
  if (site === undefined) return;
  for (const bot of bots.values()) {
    for (const window of LIMIT_WINDOWS) {
      const ceiling = site[window]?.spend;
      if (ceiling !== undefined && bot.limits.spend > ceiling) {
        throw new BotFileError(
          `${bot.slug}.md`,
          'limits.spend',
          `is $${String(bot.limits.spend)} an answer, more than the site's ${window} spend in CONFAB_SITE_LIMITS ($${String(ceiling)}), so no answer of this bot could ever be given; lower it, or raise that ceiling.`,
        );
      }
    }
  }
}

function readVoice(file: string, value: unknown, languagesValue: unknown): { voice: BotVoice; languages: Language[] } {
  const fields = value === undefined ? {} : mapping(file, 'voice', value, VOICE_KEYS, 'voice.');
  const by = oneOf(file, 'voice.by', fields.by, SPEAKERS) ?? 'browser';
  const partial: Partial<Talk> = {};
  for (const key of ['steps', 'opening', 'floor', 'words'] as const) {
    const given = number(file, `voice.${key}`, fields[key]);
    if (given !== undefined) partial[key] = given;
  }
  const gap = number(file, 'voice.gap', fields.gap);
  if (gap !== undefined) {
    if (gap < 0 || gap > GAP_SECONDS_MAX) {
      throw new BotFileError(file, 'voice.gap', `is ${gap}; it must be seconds from 0 to ${GAP_SECONDS_MAX} (a conversation's breath is 0.12).`);
    }
    partial.gapMs = Math.round(gap * 1000);
  }
  let talk: Talk;
  try {
    talk = resolveTalk(partial);
  } catch (error) {
    if (!(error instanceof OptionError)) throw error;
    // The message starts with the option's name, which BotFileError says itself.
    throw new BotFileError(file, error.option, error.message.slice(error.option.length + 1), { cause: error });
  }

  const voices = list(file, 'voice.voices', fields.voices);
  if (voices !== undefined && by === 'browser') {
    const unknown = voices.find((name) => !(VOICES as readonly string[]).includes(name));
    if (unknown !== undefined) {
      throw new BotFileError(file, 'voice.voices', `names "${unknown}"; the browser voice offers ${VOICES.join(', ')}.`);
    }
  }
  const language = oneOf(file, 'voice.language', fields.language, LANGUAGES_V3);
  const languages = list(file, 'languages', languagesValue) as Language[] | undefined;
  const unread = languages?.find((tag) => !(LANGUAGES_V3 as readonly string[]).includes(tag));
  if (unread !== undefined) {
    throw new BotFileError(file, 'languages', `names "${unread}"; it may list ${LANGUAGES_V3.join(', ')}.`);
  }
  const spoken = language ?? languages?.[0] ?? 'en';
  if (languages !== undefined && !languages.includes(spoken)) {
    throw new BotFileError(file, 'voice.language', `is "${spoken}", which languages (${languages.join(', ')}) does not list; add it there or pick one of those.`);
  }
  return {
    voice: {
      ...talk,
      by,
      visual: oneOf(file, 'voice.visual', fields.visual, ORB_SHAPES) ?? 'halo',
      voices: voices ?? (by === 'browser' ? [...VOICES] : []),
      language: spoken,
    },
    languages: languages ?? [spoken],
  };
}

function readLimits(file: string, value: unknown): BotLimits {
  if (value === undefined) return structuredClone(DEFAULT_LIMITS);
  const fields = mapping(file, 'limits', value, LIMIT_KEYS, 'limits.');
  const limits: BotLimits = {
    steps: ranged(file, 'limits.steps', fields.steps, 1, 64, true) ?? DEFAULT_LIMITS.steps,
    spend: ranged(file, 'limits.spend', fields.spend, 0, 100, false) ?? DEFAULT_LIMITS.spend,
    minutes: ranged(file, 'limits.minutes', fields.minutes, 0, 60, false) ?? DEFAULT_LIMITS.minutes,
  };
  if (limits.minutes === 0) {
    throw new BotFileError(file, 'limits.minutes', 'is 0; it must be minutes above 0 and up to 60.');
  }
  const named = LIMIT_WINDOWS.filter((window) => fields[window] !== undefined);
  if (named.length === 0) {
    for (const window of LIMIT_WINDOWS) {
      const ceiling = DEFAULT_LIMITS[window];
      if (ceiling !== undefined) limits[window] = { ...ceiling };
    }
    return limits;
  }
  for (const window of named) {
    const where = `limits.${window}`;
    const ceiling = mapping(file, where, fields[window], WINDOW_KEYS, `${where}.`);
    const answers = ranged(file, `${where}.answers`, ceiling.answers, 1, 1_000_000, true);
    const spend = ranged(file, `${where}.spend`, ceiling.spend, 0, 100_000, false);
    if (answers === undefined && spend === undefined) {
      throw new BotFileError(file, where, 'sets nothing; give it answers (a whole number) and/or spend (USD), or leave it out.');
    }
    limits[window] = { ...(answers === undefined ? {} : { answers }), ...(spend === undefined ? {} : { spend }) };
  }
  if (named.every((window) => limits[window]?.spend === undefined)) {
    throw new BotFileError(
      file,
      'limits',
      `caps no spend over any window; give one a spend (e.g. perDay: { spend: 1.00 }) — a per-answer budget does not stop one person asking two hundred times. Windows: ${LIMIT_WINDOWS.join(', ')}.`,
    );
  }
  try {
    // Each answer holds its per-answer spend while it runs, so a window must have room for one.
    validateLimits(limits, limits.spend);
  } catch (cause) {
    throw new BotFileError(file, 'limits', `cannot admit a single answer: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  return limits;
}
