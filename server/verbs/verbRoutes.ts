/**
 * `GET /api/bots/<bot>/verbs[?conversation=<key>][&said=<line>]`: what a turn with this bot (of that
 * line) may do, and why —
 * so "why didn't my verb fire" stays answerable. Each verb in scope says why it is (`always`, the
 * bot's own app, or `recent`ly used in that conversation); each verb left out says whether the cap
 * took it, its outside app's server is away, or nothing chose it. A verb of an outside app is
 * marked `site` (it acts with the site's credentials), each verb in scope shows the input schema
 * the model is shown (`inputSchema`), and each outside app the bot names says whether it is up, and
 * if not why (`outside`). And `GET /api/bots/<bot>/phrases`: the words the person uses with
 * the apps (their lists' names), for the page's recogniser to expect.
 */
import { Hono } from 'hono';
import type { Bot } from '../bots';
import type { Database } from '../db/database';
import type { PersonEnv } from '../person';
import type { Executor } from './executor';
import { inputSchemaOf } from './project';
import { appOf } from './registry';
import { SCOPE_MAX, scopeOf } from './scope';
import type { App, AppStatus, Caller } from './verb';
import { refusal } from '../words/requestWords';

/** What an outside app says of itself now: its kind and file, whether it is up, and why not. */
export type OutsideStatus = { app: string; kind: string; file: string } & AppStatus;

/** What each outside app among `apps` says of itself now. */
export function outsideStatus(apps: readonly App[]): OutsideStatus[] {
  return apps.flatMap((app) => {
    if (app.outside === undefined) return [];
    return [{ app: app.name, kind: app.outside.kind, file: app.outside.file, ...app.outside.status() }];
  });
}

/** What a bot's skills change in a conversation's scope (`scopeOf`'s `hidden` and `opened`). */
export interface SkillsScope {
  hidden: ReadonlySet<string>;
  opened: readonly string[];
}

export interface VerbRoutesDeps {
  bots: ReadonlyMap<string, Bot>;
  executor: Executor;
  db: Pick<Database, 'asPerson'>;
  /** The skills' part of the scope, as the door reads it for a turn; unset: skills change nothing. */
  skillsScope?: (bot: Bot, caller: Caller, conversationKey: string | undefined) => Promise<SkillsScope>;
}

export function verbRoutes({ bots, executor, db, skillsScope }: VerbRoutesDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  // The words the person uses with the apps (their lists' names), for the page's recogniser to expect.
  routes.get('/bots/:slug/phrases', async (c) => {
    if (!bots.has(c.req.param('slug'))) throw refusal(c, 404, 'requests.no-bot', { bot: c.req.param('slug') });
    const person = c.get('person');
    const apps = executor.registry.apps.filter((app) => app.phrases !== undefined);
    const phrases = await db.asPerson(person, async (tx) => {
      const found: string[] = [];
      for (const app of apps) found.push(...((await app.phrases?.(tx)) ?? []));
      return found;
    });
    return c.json({ phrases: [...new Set(phrases)] });
  });
  routes.get('/bots/:slug/verbs', async (c) => {
    const bot = bots.get(c.req.param('slug'));
    if (bot === undefined) throw refusal(c, 404, 'requests.no-bot', { bot: c.req.param('slug') });
    // `?conversation=` is the page's conversation key, under the name the page sends it by.
    const conversationKey = c.req.query('conversation');
    const caller: Caller = { person: c.get('person'), bot: bot.slug, via: 'person', timeZone: 'UTC' };
    const recentApps = await executor.recentApps(caller, conversationKey);
    const skills = skillsScope === undefined ? {} : await skillsScope(bot, caller, conversationKey);
    // `?said=`: a line the person might say, to see the scope a turn of it would have.
    const said = c.req.query('said');
    const scope = scopeOf(executor.registry, { botApps: bot.apps, recentApps, ...skills, ...(said === undefined ? {} : { heard: said }) });
    return c.json({
      bot: bot.slug,
      max: SCOPE_MAX,
      botApps: bot.apps,
      recentApps: recentApps.slice(0, 2),
      inScope: scope.verbs.map(({ verb, why }) => ({
        verb: verb.name,
        app: appOf(verb.name),
        why,
        risk: verb.risk,
        confirm: verb.confirm === true,
        ...(executor.registry.app(appOf(verb.name))?.outside === undefined ? {} : { site: true }),
        description: verb.description,
        example: verb.example,
        // The arguments as the model is shown them (`openAiTools`' `parameters`).
        inputSchema: inputSchemaOf(verb),
      })),
      leftOut: scope.leftOut,
      outside: outsideStatus(executor.registry.apps.filter((app) => bot.apps.includes(app.name))),
    });
  });
  return routes;
}
