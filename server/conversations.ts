/**
 * The person's own conversations and memories, under their session. Every query runs as that person
 * (`asPerson`), so row level security — not these handlers — is what keeps one person out of
 * another's rows; a handler never takes a person id from the request.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { LINE_MAX_CHARS } from '../common/conversation/events';
import type { WindowEvent } from '../common/presence/protocol';
import type { Bot } from './bots';
import { takeChoice } from './db/choices';
import type { Database } from './db/database';
import { RefusedError } from './db/errors';
import { addLine, listLines } from './db/lines';
import { forgetMemory, listMemories } from './db/memories';
import { botOfThread, createThread, deleteThread, listThreads } from './db/threads';
import { bodyCap } from './bodyCap';
import { flag, readJson, text } from './json';
import type { PersonEnv } from './person';
import { languageOf, refusal } from './words/requestWords';

/**
 * The largest body the lines route reads, in bytes: a line of `LINE_MAX_CHARS` whatever it is made
 * of. JSON writes a UTF-16 code unit in at most 6 bytes (a control character as `\u0000`; anything
 * else in at most 3 bytes of UTF-8), and the other fields fit in the 4 KiB on top.
 */
export const LINE_BODY_MAX_BYTES = 6 * LINE_MAX_CHARS + 4 * 1024;

/** A line over `LINE_MAX_CHARS`: 413, and what to do instead, its counts written as the request's language writes numbers. */
function tooLong(c: Context, chars: number) {
  const language = languageOf(c);
  return refusal(c, 413, 'requests.line-too-long', { most: LINE_MAX_CHARS.toLocaleString(language), chars: chars.toLocaleString(language) });
}

export interface ConversationDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  /**
   * Tells the person's pages for `bot` what the server itself knows of their conversation: an
   * answer kept with the choices it offers, a choice taken (`presence.publish`). Default: untold.
   */
  publish?: (person: string, bot: string, events: readonly WindowEvent[]) => Promise<unknown>;
}

export function conversationRoutes({ db, bots, publish }: ConversationDeps): Hono<PersonEnv> {
  /** A courtesy to the person's pages: what is kept stands whether or not they hear of it at once. */
  const tell = (person: string, bot: string, event: WindowEvent) => {
    void publish?.(person, bot, [event]).catch(() => undefined);
  };
  const routes = new Hono<PersonEnv>();
  const knownBot = (c: Context, slug: string): string => {
    if (!bots.has(slug)) throw refusal(c, 404, 'requests.no-bot', { bot: slug });
    return slug;
  };

  routes.post('/threads', async (c) => {
    const bot = knownBot(c, text(c, await readJson(c), 'bot', { maxChars: 64 }));
    const person = c.get('person');
    const thread = await db.asPerson(person, (tx) => createThread(tx, { person, bot }));
    return c.json({ id: thread.id, bot: thread.bot, createdAt: thread.createdAt }, 201);
  });

  routes.get('/threads', async (c) => {
    const bot = knownBot(c, c.req.query('bot') ?? '');
    const threads = await db.asPerson(c.get('person'), (tx) => listThreads(tx, { bot }));
    return c.json({ threads });
  });

  routes.post('/threads/:id/lines', bodyCap(LINE_BODY_MAX_BYTES), async (c) => {
    const body = await readJson(c);
    const who = text(c, body, 'who', { maxChars: 16 });
    if (who !== 'person' && who !== 'assistant') throw refusal(c, 400, 'requests.line-who');
    const said = text(c, body, 'text', { maxChars: Number.MAX_SAFE_INTEGER });
    if (said.length > LINE_MAX_CHARS) throw tooLong(c, said.length);
    if (said.trim() === '') throw refusal(c, 400, 'requests.line-blank');
    const clientId = text(c, body, 'clientId', { maxChars: 128 });
    const person = c.get('person');
    try {
      const threadId = c.req.param('id');
      const { line, bot } = await db.asPerson(person, async (tx) => {
        const kept = await addLine(tx, { threadId, person, who: who, text: said, clientId, interrupted: flag(c, body, 'interrupted') });
        return { line: kept, bot: kept.choices === null ? null : await botOfThread(tx, threadId) };
      });
      // Every page of the person's shows the answer's choices under its words, as the server cut them.
      if (line.choices !== null && bot !== null) {
        tell(person, bot, { kind: 'offer', threadId, clientId: line.clientId, text: line.text, offer: { id: line.id, ...line.choices, taken: line.taken } });
      }
      return c.json(line, 201);
    } catch (error) {
      if (error instanceof RefusedError) throw refusal(c, 404, 'requests.no-conversation');
      throw error;
    }
  });

  // A choice pressed (or said): taken once, in the person's name, with the offer's own words — the
  // page sends those as the person's next words. A second press of the same offer is told it is gone.
  routes.post('/choices', async (c) => {
    const body = await readJson(c);
    const offer = text(c, body, 'offer', { maxChars: 64 });
    const choice = body.choice;
    if (typeof choice !== 'number' || !Number.isSafeInteger(choice) || choice < 0) throw refusal(c, 400, 'requests.choice-index');
    const via = body.via === 'voice' ? 'voice' : 'press';
    const person = c.get('person');
    const taking = await db.asPerson(person, (tx) => takeChoice(tx, { person, offer, choice, via }));
    if (taking.outcome === 'none') throw refusal(c, 404, 'requests.no-choice');
    if (taking.outcome === 'gone') return c.json({ error: refusal(c, 409, 'requests.choice-gone').message, taken: taking.taken }, 409);
    tell(person, taking.bot, { kind: 'choice', offer, taken: choice });
    return c.json({ words: taking.words, taken: choice });
  });

  routes.get('/threads/:id/lines', async (c) => {
    const lines = await db.asPerson(c.get('person'), (tx) => listLines(tx, c.req.param('id')));
    return c.json({ lines });
  });

  routes.delete('/threads/:id', async (c) => {
    const gone = await db.asPerson(c.get('person'), (tx) => deleteThread(tx, c.req.param('id')));
    if (!gone) throw refusal(c, 404, 'requests.no-conversation');
    return c.body(null, 204);
  });

  routes.get('/memories', async (c) => {
    const bot = knownBot(c, c.req.query('bot') ?? '');
    const memories = await db.asPerson(c.get('person'), (tx) => listMemories(tx, { bot }));
    return c.json({ memories });
  });

  routes.delete('/memories/:id', async (c) => {
    const gone = await db.asPerson(c.get('person'), (tx) => forgetMemory(tx, c.req.param('id')));
    if (!gone) throw refusal(c, 404, 'requests.no-memory');
    return c.body(null, 204);
  });

  return routes;
}
