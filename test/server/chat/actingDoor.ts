/**
 * The whole API on a real port with a test app whose verbs write real rows, a scripted provider
 * that streams tool calls, and a browser that keeps its person cookie — for the door's tool loop.
 * The app `pantry` keeps its items in the core `notices` table (app 'pantry'), so commits and
 * rollbacks are Postgres's own.
 */
import { z } from 'zod';
import type { Backend, BackendDeps } from '../../../server/backend';
import { parseBotFile } from '../../../server/bots';
import type { DoorLogLine } from '../../../server/chat/doorTypes';
import type { Provider } from '../../../server/chat/upstream';
import type { Database } from '../../../server/db/database';
import type { Queryable } from '../../../server/db/queryable';
import type { VerbLogLine } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import { heardOf } from '../../helpers/doorHeard';
import type { Heard } from '../../helpers/doorHeard';
import { openTestBackend } from '../../helpers/testBackend';
import { delay, serveApp, startUpstream } from './localServers';
import type { Listening, Script, Upstream } from './localServers';

/** What the pantry's verbs saw, for assertions on signals. */
export const seen = { slowAborted: 0, slowStarted: 0, writesStarted: 0 };

async function countItems(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ n: number }>("select count(*)::int as n from notices where app = 'pantry'");
  return rows[0]?.n ?? 0;
}

export const pantry = defineApp({
  name: 'pantry',
  description: 'What is in the pantry.',
  verbs: [
    defineVerb({
      name: 'pantry.add',
      description: 'Puts an item in the pantry.',
      example: 'add rice to the pantry',
      input: z.object({ item: z.string().min(1).max(80), waitMs: z.number().int().min(0).max(5000).optional() }),
      output: z.object({ added: z.string() }),
      risk: 'write',
      deadlineMs: 5000,
      run: async ({ item, waitMs }, { tx, person, bot }) => {
        seen.writesStarted += 1;
        if (waitMs !== undefined) await delay(waitMs);
        await tx.query("insert into notices (person, bot, app, text, due_at) values ($1, $2, 'pantry', $3, now())", [person, bot, item]);
        return { added: item };
      },
      standIn: {
        phrasings: [{ pattern: /^add (.+) to the pantry$/, input: (m) => ({ item: m[1] ?? '' }) }],
        say: (output) => `I've put ${output.added} in the pantry.`,
      },
    }),
    defineVerb({
      name: 'pantry.count',
      description: 'How many items are in the pantry.',
      example: 'how full is the pantry',
      input: z.object({}),
      output: z.object({ items: z.number().int() }),
      risk: 'read',
      deadlineMs: 2000,
      run: async (_, { tx }) => ({ items: await countItems(tx) }),
    }),
    defineVerb({
      name: 'pantry.slow',
      description: 'Checks the pantry slowly.',
      example: 'check the pantry slowly',
      input: z.object({ ms: z.number().int().min(0).max(10_000) }),
      output: z.object({ checked: z.boolean() }),
      risk: 'read',
      deadlineMs: 10_000,
      run: ({ ms }, { signal }) => {
        seen.slowStarted += 1;
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            resolve({ checked: true });
          }, ms);
          signal.addEventListener('abort', () => {
            seen.slowAborted += 1;
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
      },
    }),
    defineVerb({
      name: 'pantry.empty',
      description: 'Throws everything in the pantry away.',
      example: 'empty the pantry',
      input: z.object({}),
      output: z.object({ removed: z.number().int() }),
      risk: 'destructive',
      confirm: true,
      ask: () => 'Empty the pantry?',
      deadlineMs: 5000,
      run: async (_, { tx }) => {
        const { rows } = await tx.query<{ id: string }>("delete from notices where app = 'pantry' returning id");
        return { removed: rows.length };
      },
      standIn: {
        phrasings: [{ pattern: /^empty the pantry$/, input: () => ({}) }],
        say: () => 'The pantry is empty.',
      },
    }),
  ],
  narrators: [
    {
      follows: 'pantry.*',
      narrate: async (_, { tx }) => {
        const n = await countItems(tx);
        return n === 0 ? 'The pantry is empty now.' : `That's ${String(n)} ${n === 1 ? 'thing' : 'things'} in the pantry.`;
      },
    },
  ],
});

export const BOT = `---
name: Pantry
memory: none
apps: [pantry]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You keep the pantry.`;

const TALKER = `---
name: Talker
memory: none
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You only talk.`;

export interface ActingDoor extends Listening {
  db: Database;
  api: Backend;
  upstream: Upstream;
  doorLogs: DoorLogLine[];
  verbLogs: unknown[];
  /** Replaces the provider's script. */
  script: (script: Script) => void;
}

export async function startActingDoor(options: { live?: boolean; overrides?: Partial<BackendDeps>; /** Asked after the scripted `up`, in order. */ moreProviders?: Provider[] } = {}): Promise<ActingDoor> {
  let current: Script = (reply) => {
    reply.token('Hello.');
    reply.finish();
    reply.done();
  };
  const upstream = await startUpstream((reply, received) => current(reply, received));
  const doorLogs: DoorLogLine[] = [];
  const verbLogs: (VerbLogLine | object)[] = [];
  const bots = new Map([
    ['pantry-bot', parseBotFile('pantry-bot.md', BOT)],
    ['talker', parseBotFile('talker.md', TALKER)],
  ]);
  const backend = await openTestBackend({
    bots,
    providers: [{ name: 'up', baseUrl: upstream.baseUrl, apiKey: 'key-never-logged', model: 'm' }, ...(options.moreProviders ?? [])],
    live: options.live ?? true,
    registry: createRegistry([pantry]),
    log: (line) => doorLogs.push(line),
    verbLog: (line) => verbLogs.push(line),
    ...options.overrides,
  });
  const { db, api } = backend;
  const server = await serveApp(backend.app);
  return {
    ...server,
    db,
    api,
    upstream,
    doorLogs,
    verbLogs,
    script: (script) => {
      current = script;
    },
    close: async () => {
      await server.close();
      await upstream.close();
      await backend.close();
    },
  };
}

/** A browser of one person: keeps the cookie, starts conversations, talks through the door. */
export class Person {
  cookie = '';
  constructor(private readonly url: string) {}

  async call(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const res = await fetch(`${this.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { 'content-type': 'application/json', ...(this.cookie === '' ? {} : { cookie: this.cookie }), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
    });
    const set = res.headers.get('set-cookie');
    if (set !== null) this.cookie = set.split(';')[0] ?? '';
    return res;
  }

  async start(bot = 'pantry-bot'): Promise<string> {
    const res = await this.call('/api/start', { body: { bot } });
    return ((await res.json()) as { grant: string }).grant;
  }

  /** Asks `question` (after `before`, the conversation so far) and reads the whole answer. */
  async ask(
    grant: string,
    question: string,
    options: { conversation?: string; before?: { role: 'user' | 'assistant'; content: string }[]; signal?: AbortSignal; /** `x-confab-turn`; none: a turn of its own. */ turn?: string; headers?: Record<string, string> } = {},
  ): Promise<Heard> {
    const res = await this.call('/v1/chat/completions', {
      body: { stream: true, messages: [...(options.before ?? []), { role: 'user', content: question }] },
      headers: {
        authorization: `Bearer ${grant}`,
        'x-confab-conversation': options.conversation ?? 'conversation-1',
        'x-confab-time-zone': 'Europe/Madrid',
        ...(options.turn === undefined ? {} : { 'x-confab-turn': options.turn }),
        ...options.headers,
      },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return heardOf(res);
  }
}

/** Items in the pantry, over every person (the server's view). */
export async function pantryItems(db: Database): Promise<string[]> {
  const { rows } = await db.asServer((tx) => tx.query<{ text: string }>("select text from notices where app = 'pantry' order by created_at"));
  return rows.map((r) => r.text);
}
