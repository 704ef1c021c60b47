/**
 * Checkpoints and compaction through the whole API, with no model asked for either (the seed 002:
 * no paid summaries). A conversation of 2,000 lines, driven turn by turn as the page drives it
 * against a live provider, never sends the model more than the bot's system message, one marker of
 * the gap and the last 32 messages; the provider is asked for the turns' answers and for nothing
 * else. Every 16 lines a checkpoint keeps the last lines verbatim, which a page that comes back
 * without them is handed under the marker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { RECENT_MESSAGES, recentMessages, SENT_MESSAGES } from '../../../common/presence/compaction';
import { answerTextOf } from '../../helpers/doorHeard';
import { testBackend } from '../../helpers/testBackend';
import { startUpstream } from '../chat/localServers';
import type { Upstream } from '../chat/localServers';
import { OPENING_MS } from '../db/fixtures';
import { Person } from './presenceClient';
import { openTestDatabase } from '../../helpers/testDatabase';

const LONG_BOT = `---
name: Long
memory: thread
voice:
  by: browser
  voices: [F1]
  language: en
limits:
  steps: 4
  spend: 1
  perMinute: { answers: 5000 }
  perDay: { spend: 1000 }
---
You talk with people for a long time.
`;

interface Message {
  role: string;
  content: string;
}

const GAP = 'Earlier lines of this conversation are left out here, and nothing stands in for them.';

/** Asks through the door as the page does (its key for the conversation, the last messages) and reads the whole answer. */
async function ask(person: Person, grant: string, conversation: string, messages: readonly Message[]): Promise<string> {
  const res = await person.call('/v1/chat/completions', { body: { stream: true, messages }, headers: { authorization: `Bearer ${grant}`, 'x-confab-conversation': conversation } });
  expect(res.status).toBe(200);
  return answerTextOf(res);
}

/** A checkpoint is written after the answer that made it due has been sent. */
const AFTER_ANSWER = { timeout: 5_000 };

describe('a long conversation', { timeout: 240_000 }, () => {
  const botsDir = mkdtempSync(join(tmpdir(), 'confab-long-bot-'));
  let db: Database;
  let upstream: Upstream;
  /** What the person asked last: the only thing the provider may be asked about. */
  let asking = '';
  /** Requests that were not the turn being asked — a summary, or anything else nobody asked for. */
  const strays: Message[][] = [];

  beforeAll(async () => {
    writeFileSync(join(botsDir, 'long.md'), LONG_BOT);
    db = await openTestDatabase();
    // The provider stands in for a model that fails the test if it is asked for anything but a turn.
    upstream = await startUpstream((reply, received) => {
      const messages = received.body.messages as Message[];
      const last = messages.at(-1);
      if (last?.role !== 'user' || last.content !== asking) strays.push(messages);
      reply.token(`Noted: ${last?.content ?? ''}`);
      reply.finish();
      reply.usage(10, 2);
      reply.done();
    });
  }, OPENING_MS);

  afterAll(async () => {
    await upstream.close();
    await db.close();
    rmSync(botsDir, { recursive: true, force: true });
  });

  it('sends the model the system message, a marker of the gap and the last 32 messages of a 2,000-line thread, and asks it for nothing else', async () => {
    const bots = await loadBots(botsDir);
    const { app } = testBackend(db, { bots, providers: [{ name: 'scripted', baseUrl: upstream.baseUrl, model: 'm', apiKey: 'test-key' }], live: true });
    const person = new Person(app);
    const grant = await person.start('long');
    const said: Message[] = [];
    for (let turn = 1; turn <= 1_000; turn++) {
      const question = { role: 'user', content: `Line ${String(2 * turn - 1)}.` };
      asking = question.content;
      // What the page sends: one message more than the door keeps, the question among them.
      const answer = await ask(person, grant, 'conv-long', recentMessages([...said, question], SENT_MESSAGES));
      said.push(question, { role: 'assistant', content: answer });
    }
    expect(said).toHaveLength(2_000);
    const prompts = upstream.received.map((r) => r.body.messages as Message[]);
    // One request a turn, and never a summary: every checkpoint was kept with no model asked.
    expect(prompts).toHaveLength(1_000);
    const longest = Math.max(...prompts.map((m) => m.length));
    expect(longest).toBe(1 + 1 + RECENT_MESSAGES);
    const last = prompts.at(-1) ?? [];
    expect(last[0]?.role).toBe('system');
    expect(last[0]?.content).toContain('You talk with people for a long time.');
    expect(last[1]).toEqual({ role: 'system', content: GAP });
    expect(last.slice(2).map((m) => m.content)).toEqual(said.slice(-RECENT_MESSAGES - 1, -1).map((m) => m.content));
    expect(Math.max(...prompts.map((m) => JSON.stringify(m).length))).toBeLessThan(4_000);
    // Until the thread outgrew what the door keeps, no gap was marked.
    expect(prompts[RECENT_MESSAGES / 2 - 1]?.some((m) => m.content === GAP)).toBe(false);
    expect(prompts[RECENT_MESSAGES / 2]?.[1]?.content).toBe(GAP);
    const kept = () => db.asServer((tx) => tx.query<{ summary: string }>("select summary from presence_checkpoints where bot = 'long' and conversation = 'conv-long'"));
    await expect.poll(async () => (await kept()).rows[0]?.summary, AFTER_ANSWER).toBe(said.slice(-8).map((m) => `${m.role === 'user' ? 'Person' : 'Assistant'}: ${m.content}`).join('\n'));

    // A client that sends every line there was still gets a bounded prompt.
    const everything = Array.from({ length: 2_000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: i % 2 === 0 ? 'x' : 'y' }));
    asking = 'x';
    await ask(person, grant, 'conv-long', [...everything, { role: 'user', content: 'x' }]);
    const sent = upstream.received.at(-1)?.body.messages as Message[];
    expect(sent).toHaveLength(1 + 1 + RECENT_MESSAGES);
    expect(sent[1]?.content.startsWith(GAP)).toBe(true);

    // A page that comes back to the conversation with only its new question is handed the checkpoint.
    asking = 'Where were we?';
    await ask(person, grant, 'conv-long', [{ role: 'user', content: asking }]);
    const resumed = upstream.received.at(-1)?.body.messages as Message[];
    expect(resumed).toHaveLength(3);
    expect(resumed[1]?.content).toBe(`${GAP} The last of them, as they were said:\n${(await kept()).rows[0]?.summary ?? ''}`);
    expect(strays).toEqual([]);
  });

  it('keeps the last lines verbatim as the checkpoint when the stand-in answers', async () => {
    const bots = await loadBots(botsDir);
    const person = new Person(testBackend(db, { bots }).app);
    const grant = await person.start('long');
    const said: Message[] = [];
    for (let turn = 1; turn <= 8; turn++) {
      const question = { role: 'user', content: `Question ${String(turn)}.` };
      said.push(question, { role: 'assistant', content: await ask(person, grant, 'conv-stand-in', [...said, question]) });
    }
    const kept = () => db.asServer((tx) => tx.query<{ summary: string | null }>("select summary from presence_checkpoints where conversation = 'conv-stand-in'"));
    await expect.poll(async () => (await kept()).rows[0]?.summary, AFTER_ANSWER).toEqual(expect.any(String));
    const checkpoint = (await kept()).rows[0]?.summary ?? '';
    expect(checkpoint.split('\n')).toHaveLength(8);
    expect(checkpoint).toMatch(/^Person: Question 5\.\nAssistant: .+\nPerson: Question 6\./);
    expect(checkpoint.endsWith(`Assistant: ${said.at(-1)?.content.trim() ?? ''}`)).toBe(true);
  });
});
