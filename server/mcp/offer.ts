/**
 * Which tools a token offers: the verbs of its bots' apps (`apps:` in each bot file) and no others,
 * in registry order — and, for each verb, the bot its calls are made through: the first of the
 * token's bots that has the verb's app. A verb a spoken turn always has (`always`: the clock, taking
 * work on, schedules) is no exception: work started over MCP runs and fires with nobody listening,
 * so a token may start it only through a bot whose file names its app. Unlike a spoken turn there is
 * no cap of twelve: an MCP client lists tools once and the person chose the bots. Pure.
 */
import type { Bot } from '../bots';
import { appOf } from '../verbs/registry';
import type { Registry } from '../verbs/registry';
import type { McpTool } from './tools';

export interface Offer {
  tools: McpTool[];
  scope: ReadonlySet<string>;
  /** The bot a verb's call is made through. */
  botFor: (verb: string) => string;
}

/**
 * What `bots` (the token's, in its order; unknown slugs are passed over) offer, from the projection
 * of every verb in the registry (`toolsByVerb`).
 */
export function offerOf(registry: Registry, toolsByVerb: ReadonlyMap<string, McpTool>, bots: readonly string[], known: ReadonlyMap<string, Bot>): Offer {
  const botsOfApp = new Map<string, string>();
  for (const slug of bots) {
    for (const app of known.get(slug)?.apps ?? []) if (!botsOfApp.has(app)) botsOfApp.set(app, slug);
  }
  const first = bots.find((slug) => known.has(slug)) ?? bots[0] ?? '';
  // An outside app acts with the site's credentials: an MCP client of Confab must not borrow them.
  const tools = registry.verbs
    .filter((verb) => registry.app(appOf(verb.name))?.outside === undefined)
    .filter((verb) => botsOfApp.has(appOf(verb.name)))
    .map((verb) => toolsByVerb.get(verb.name))
    .filter((tool): tool is McpTool => tool !== undefined);
  return {
    tools,
    scope: new Set(tools.map((tool) => tool.verb)),
    botFor: (verb) => botsOfApp.get(appOf(verb)) ?? first,
  };
}
