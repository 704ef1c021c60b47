/**
 * Checkpoints and compaction through the whole API: a conversation of 2,000 lines, driven turn by
 * turn as the page drives it against a live provider, never sends the model more than the bot's
 * system message, the latest checkpoint's summary and the last 32 messages; checkpoints are the
 * model's own summaries every 16 lines when a provider is live, and the last lines verbatim with
 * the stand-in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../server/bots';
import { openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { RECENT_MESSAGES, recentMessages } from '../../../common/presence/compaction';
import { answerTextOf } from '../../helpers/doorHeard';
import { testBackend } from '../../helpers/testBackend';
import { startUpstream } from '../chat/localServers';
import type { Upstream } from '../chat/localServers';
import { OPENING_MS } from '../db/fixtures';
import { Person } from './presenceClient';

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

/** Asks through the door as the page does (its key for the conversation, the last 32 messages) and reads the whole answer. */
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
  let summaries = 0;

  beforeAll(async () => {
    writeFileSync(join(botsDir, 'long.md'), LONG_BOT);
    db = await openDatabase({ dataDir: 'memory://' });
    upstream = await startUpstream((reply, received) => {
      const messages = received.body.messages as Message[];
      const asksForSummary = messages[0]?.content.includes('running summary') === true;
      if (asksForSummary) summaries += 1;
      reply.token(asksForSummary ? `Summary ${summaries}: the person counted lines.` : 'Noted.');
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

  it('sends the model the system message, the latest summary and the last 32 messages of a 2,000-line thread — never the whole history', async () => {
    const bots = await loadBots(botsDir);
    const { app } = testBackend(db, { bots, providers: [{ name: 'scripted', baseUrl: upstream.baseUrl, model: 'm', apiKey: 'test-key' }], live: true });
    const person = new Person(app);
    const grant = await person.start('long');
    const said: Message[] = [];
    for (let turn = 1; turn <= 1_000; turn++) {
      const question = { role: 'user', content: `Line ${String(2 * turn - 1)}.` };
      // What the page sends: the last 32 messages of what was said, the question among them.
      const answer = await ask(person, grant, 'conv-long', recentMessages([...said, question], RECENT_MESSAGES));
      said.push(question, { role: 'assistant', content: answer });
    }
    expect(said).toHaveLength(2_000);
    const prompts = upstream.received.map((r) => r.body.messages as Message[]).filter((m) => m[0]?.content.includes('running summary') !== true);
    expect(prompts).toHaveLength(1_000);
    const longest = Math.max(...prompts.map((m) => m.length));
    expect(longest).toBe(1 + 1 + RECENT_MESSAGES);
    const last = prompts.at(-1) ?? [];
    expect(last[0]?.role).toBe('system');
    expect(last[0]?.content).toContain('You talk with people for a long time.');
    expect(last[1]?.content).toMatch(/^Earlier in this conversation \(a summary, not the person's words\):\nSummary \d+: the person counted lines\.$/);
    expect(last.slice(2).map((m) => m.content)).toEqual(said.slice(-RECENT_MESSAGES - 1, -1).map((m) => m.content));
    expect(Math.max(...prompts.map((m) => JSON.stringify(m).length))).toBeLessThan(4_000);
    // A checkpoint every 16 lines: 2,000 lines, 125 of the model's summaries (the last may still be on its way).
    await expect.poll(() => summaries, AFTER_ANSWER).toBeGreaterThanOrEqual(125);
    expect(summaries).toBe(125);
    const kept = () => db.asServer((tx) => tx.query<{ summary: string }>("select summary from presence_checkpoints where bot = 'long' and conversation = 'conv-long'"));
    await expect.poll(async () => (await kept()).rows[0]?.summary, AFTER_ANSWER).toBe('Summary 125: the person counted lines.');

    // A client that sends every line there was still gets a bounded prompt.
    const everything = Array.from({ length: 2_000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: 'x' }));
    await ask(person, grant, 'conv-long', everything);
    const sent = upstream.received.at(-1)?.body.messages as Message[];
    expect(sent).toHaveLength(1 + 1 + RECENT_MESSAGES);
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
    const summary = (await kept()).rows[0]?.summary ?? '';
    expect(summary.split('\n')).toHaveLength(8);
    expect(summary).toMatch(/^Person: Question 5\.\nAssistant: .+\nPerson: Question 6\./);
    expect(summary.endsWith(`Assistant: ${said.at(-1)?.content.trim() ?? ''}`)).toBe(true);
  });
});
