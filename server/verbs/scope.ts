/**
 * Which verbs one turn may use, and why: the model never sees more than `SCOPE_MAX` (the seed's
 * twelve), so it stays decisive as apps are added. In order: verbs marked `always`, then the bot's
 * own apps, then the last two apps used in this conversation that are not already offered whole
 * (most recent first); what does not fit under the cap is left out, and said to be.
 *
 * While the bot's own apps all fit they keep its file's order, so a turn's tools are the same turn
 * after turn. When they do not, the ones this turn is about come first — those the person's line is
 * a phrasing of (a verb's `standIn.phrasings`: "remind me in ten minutes to …" is the reminders
 * app's) — then those used lately, then the rest in the file's order.
 *
 * An outside app (it acts with the site's credentials) is offered only to a bot whose file names
 * it, never as a recent one, and not while its server is away. `GET /api/bots/<bot>/verbs` answers
 * the same list with the reasons, and what was left out.
 */
import { plainLine } from '../chat/standInModel';
import { appOf } from './registry';
import type { Registry } from './registry';
import type { App, Verb } from './verb';

/**
 * Most verbs one turn may see: twelve (seed 000, "capped at twelve total"). The verbs every bot has
 * (the clock, taking work on, opening a skill) are eight of them; the bot's own apps and the recent
 * ones share the rest, the turn's own app first.
 */
export const SCOPE_MAX = 12;
/** How many recently used apps stay in scope. */
export const RECENT_APPS = 2;

type ScopeReason = 'always' | 'skill' | 'bot' | 'recent';

interface ScopedVerb {
  verb: Verb;
  why: ScopeReason;
}

interface LeftOut {
  verb: string;
  /**
   * `cap`: it would have been in scope, but `SCOPE_MAX` verbs came first; `away`: its app is an
   * outside one whose server cannot be reached now; `not-chosen`: no reason to include it.
   */
  why: 'cap' | 'away' | 'not-chosen';
}

export interface Scope {
  verbs: ScopedVerb[];
  leftOut: LeftOut[];
  /** The names in scope, for the executor's policy. */
  names: ReadonlySet<string>;
}

export interface ScopeAsk {
  /** The apps the bot file names. */
  botApps: readonly string[];
  /** Apps used in this conversation, most recent first (only the first `RECENT_APPS` count). */
  recentApps: readonly string[];
  /**
   * Verbs not offered this turn for any reason, as if they did not exist: the verbs the bot's skills
   * bring that no skill opened in this conversation brought, and `skills.open` for a bot with none.
   */
  hidden?: ReadonlySet<string>;
  /** The verbs the skills opened in this conversation bring, offered after `always` ones. */
  opened?: readonly string[];
  /** The person's last line: the bot's apps it is a phrasing of are its first. Unset: none is. */
  heard?: string;
}

/** Whether `app` is an outside one whose server cannot be reached now. */
function isAway(app: App | undefined): boolean {
  return app?.outside?.status().up === false;
}

/** Whether `line` (plain, as `plainLine` makes it) is a phrasing of one of `app`'s verbs. */
function speaksOf(app: App | undefined, line: string): boolean {
  return (app?.verbs ?? []).some((verb) =>
    (verb.standIn?.phrasings ?? []).some((phrasing) => {
      phrasing.pattern.lastIndex = 0;
      return phrasing.pattern.test(line);
    }),
  );
}

/** The bot's apps in the order they take the places left: the one the line speaks of, those used lately, then the file's order. */
function botAppsInOrder(registry: Registry, botApps: readonly string[], recentApps: readonly string[], heard: string | undefined): string[] {
  const line = heard === undefined ? '' : plainLine(heard);
  const spoken = line === '' ? [] : botApps.filter((app) => speaksOf(registry.app(app), line));
  const used = recentApps.filter((app) => botApps.includes(app));
  return [...new Set([...spoken, ...used, ...botApps])];
}

export function scopeOf(registry: Registry, { botApps, recentApps, hidden, opened = [], heard }: ScopeAsk): Scope {
  const wanted: ScopedVerb[] = [];
  const seen = new Set<string>();
  const away = new Set<string>();
  const want = (verb: Verb, why: ScopeReason) => {
    if (seen.has(verb.name) || hidden?.has(verb.name) === true) return;
    seen.add(verb.name);
    wanted.push({ verb, why });
  };
  const verbsOf = (name: string): readonly Verb[] => {
    const app = registry.app(name);
    if (!isAway(app)) return app?.verbs ?? [];
    for (const verb of app?.verbs ?? []) away.add(verb.name);
    return [];
  };
  for (const verb of registry.verbs) if (verb.always === true && registry.app(appOf(verb.name))?.outside === undefined) want(verb, 'always');
  for (const name of opened) {
    const verb = registry.verb(name);
    if (verb !== undefined && !isAway(registry.app(appOf(name)))) want(verb, 'skill');
  }
  const botVerbs = new Set(botApps.flatMap((app) => registry.app(app)?.verbs ?? []).filter((verb) => !seen.has(verb.name) && hidden?.has(verb.name) !== true));
  const fits = wanted.length + botVerbs.size <= SCOPE_MAX;
  for (const app of fits ? botApps : botAppsInOrder(registry, botApps, recentApps, heard)) for (const verb of verbsOf(app)) want(verb, 'bot');
  // A recent app already offered whole (the bot's own, or all `always`) does not take one of the two
  // places; an outside app is never offered as a recent one (only a bot that names it may use it).
  const offered = (app: string) => (registry.app(app)?.verbs ?? []).every((verb) => seen.has(verb.name));
  const recent = [...new Set(recentApps)].filter((app) => registry.app(app)?.outside === undefined && !offered(app));
  for (const app of recent.slice(0, RECENT_APPS)) for (const verb of verbsOf(app)) want(verb, 'recent');
  const verbs = wanted.slice(0, SCOPE_MAX);
  const capped = new Set(wanted.slice(SCOPE_MAX).map((s) => s.verb.name));
  const names = new Set(verbs.map((s) => s.verb.name));
  const leftOut = registry.verbs
    .filter((verb) => !names.has(verb.name))
    .map((verb): LeftOut => ({ verb: verb.name, why: capped.has(verb.name) ? 'cap' : away.has(verb.name) ? 'away' : 'not-chosen' }));
  return { verbs, leftOut, names };
}

/**
 * Whether the apps a conversation used lately could change what `botApps` are offered: false when
 * `always` and the bot's own apps already offer every app of the registry whole, within the cap, so
 * that no recent app could take one of the two places nor move one of the bot's ahead — and the
 * door need not read which apps those were.
 */
export function recentAppsMatter(registry: Registry, botApps: readonly string[]): boolean {
  const offered = new Set(registry.verbs.filter((verb) => verb.always === true).map((verb) => verb.name));
  for (const app of botApps) for (const verb of registry.app(app)?.verbs ?? []) offered.add(verb.name);
  if (offered.size > SCOPE_MAX) return true;
  // An outside app is never offered as a recent one, so it cannot matter here.
  return registry.apps.some((app) => app.outside === undefined && app.verbs.some((verb) => !offered.has(verb.name)));
}
