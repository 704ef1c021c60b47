import { describe, expect, it } from 'vitest';
import { openLineKeeping } from '../../src/app/lineKeeping';
import { LINE_MAX_CHARS } from '../../common/conversation/events';
import type { Line } from '../../common/conversation/events';
import type { Outbox, OutboxLine } from '../../src/platform/outbox';

/** An outbox that keeps lines in memory and sends them to a pretend server at once. */
function fakeOutbox() {
  const kept: { thread: string; line: OutboxLine }[] = [];
  const started: string[] = [];
  const adopted: string[] = [];
  const outbox: Outbox = {
    durable: true,
    startThread: (bot) => {
      started.push(bot);
      return Promise.resolve(`local-${String(started.length)}`);
    },
    adoptThread: (serverThreadId) => {
      adopted.push(serverThreadId);
      return Promise.resolve(`adopted-${serverThreadId}`);
    },
    addLine: (thread, line) => {
      kept.push({ thread, line });
      return Promise.resolve();
    },
    flush: () => Promise.resolve(),
    pending: () => 0,
    serverThreadId: (local) => Promise.resolve(`server-${local}`),
    onPending: () => () => undefined,
    onRefused: () => () => undefined,
    onFailed: () => () => undefined,
    close: () => undefined,
  };
  return { outbox, kept, started, adopted };
}

async function setUp() {
  const box = fakeOutbox();
  let threadId: string | null = null;
  const sentAsLeaving: OutboxLine[] = [];
  const keeping = await openLineKeeping({
    api: {
      createThread: () => Promise.resolve({ id: 'never' }),
      addLine: (_thread, line) => {
        sentAsLeaving.push(line);
        return Promise.reject(new Error('gone'));
      },
    },
    bot: 'sage',
    threadId: () => threadId,
    onThreadId: (id) => {
      threadId = id;
    },
    onWaiting: () => undefined,
    onProblem: () => undefined,
    openOutbox: () => Promise.resolve(box.outbox),
  });
  return { ...box, keeping, threadId: () => threadId, sentAsLeaving };
}

const greeting: Line = { role: 'assistant', text: 'Hello.', utteranceId: 1 };
const question: Line = { role: 'user', text: 'Hi.', utteranceId: 2 };

describe('keeping lines', () => {
  it('holds a greeting back until the person says something, then keeps both in order under one thread', async () => {
    const t = await setUp();
    t.keeping.keep(greeting);
    // A line kept starts its thread at once: none was.
    expect(t.kept).toEqual([]);
    expect(t.started).toEqual([]);
    t.keeping.keep(question);
    // The server's id comes last, once the lines are in.
    await expect.poll(() => t.threadId()).toBe('server-local-1');
    expect(t.started).toEqual(['sage']);
    expect(t.kept.map((k) => [k.thread, k.line.who, k.line.text])).toEqual([
      ['local-1', 'assistant', 'Hello.'],
      ['local-1', 'person', 'Hi.'],
    ]);
  });

  it('gives each conversation its own clientIds, and never keeps a greeting alone', async () => {
    const t = await setUp();
    t.keeping.keep(question);
    await expect.poll(() => t.threadId()).toBe('server-local-1');
    t.keeping.fresh();
    t.keeping.keep(greeting);
    t.keeping.keep({ ...question, utteranceId: 2 });
    await expect.poll(() => t.kept).toHaveLength(3);
    const [first, , second] = t.kept.map((k) => k.line.clientId);
    expect(first?.endsWith(':2:user')).toBe(true);
    expect(second?.endsWith(':2:user')).toBe(true);
    expect(first).not.toBe(second);
  });

  it('keeps a reopened conversation’s lines at once, under the adopted thread', async () => {
    const t = await setUp();
    t.keeping.reopen('s-9');
    t.keeping.keep({ role: 'assistant', text: 'Back again.', utteranceId: 7 });
    await expect.poll(() => t.kept).toHaveLength(1);
    expect(t.adopted).toEqual(['s-9']);
    expect(t.kept.map((k) => k.thread)).toEqual(['adopted-s-9']);
  });

  it('also sends a line at once while the page is going away', async () => {
    const t = await setUp();
    t.keeping.keep(question);
    // Sent at once only where the server has the conversation.
    await expect.poll(() => t.threadId()).toBe('server-local-1');
    t.keeping.leaving(true);
    t.keeping.keep({ role: 'assistant', text: 'Bye.', utteranceId: 2, interrupted: true });
    expect(t.sentAsLeaving).toEqual([expect.objectContaining({ who: 'assistant', text: 'Bye.', interrupted: true })]);
  });

  it('names each conversation to the door with a key of its own, a reopened one by its thread', async () => {
    const t = await setUp();
    const first = t.keeping.key();
    expect(t.keeping.key()).toBe(first);
    t.keeping.fresh();
    expect(t.keeping.key()).not.toBe(first);
    t.keeping.reopen('s-9');
    expect(t.keeping.key()).toBe('thread:s-9');
  });
  it('keeps an answer longer than the server takes as several lines in a row, each with its own clientId, nothing lost', async () => {
    const t = await setUp();
    t.keeping.keep(question);
    const long = 'word '.repeat(Math.ceil((LINE_MAX_CHARS * 1.5) / 5));
    t.keeping.keep({ role: 'assistant', text: long, utteranceId: 3, interrupted: true });
    await expect.poll(() => t.kept).toHaveLength(3);
    const answer = t.kept.slice(1).map((k) => k.line);
    expect(answer).toHaveLength(2);
    expect(answer.every((line) => line.who === 'assistant' && line.text.length <= LINE_MAX_CHARS)).toBe(true);
    expect(answer.map((line) => line.text).join('')).toBe(long);
    const [first, second] = answer;
    expect(second?.clientId).toBe(`${first?.clientId ?? ''}:1`);
    expect(first?.clientId.endsWith(':3:assistant')).toBe(true);
    // The person talked over the end of it, so only the last part is the one cut short.
    expect(answer.map((line) => line.interrupted === true)).toEqual([false, true]);
  });

  it('writes lines to the outbox in the order said, even when an earlier write is slow (an answer never goes ahead of its question)', async () => {
    const t = await setUp();
    // The device's storage is slow for the greeting and question: the answer comes meanwhile.
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const addLine = t.outbox.addLine.bind(t.outbox);
    t.outbox.addLine = async (thread, line) => {
      if (line.who === 'person') await slow;
      await addLine(thread, line);
    };
    t.keeping.keep(greeting);
    t.keeping.keep(question);
    t.keeping.keep({ role: 'assistant', text: 'Which list?', utteranceId: 2 });
    await expect.poll(() => t.kept).toHaveLength(1);
    release();
    await expect.poll(() => t.kept).toHaveLength(3);
    expect(t.kept.map((k) => k.line.text)).toEqual(['Hello.', 'Hi.', 'Which list?']);
  });

  it('a line whose write failed does not stop the lines after it', async () => {
    const problems: string[] = [];
    const box = fakeOutbox();
    const addLine = box.outbox.addLine.bind(box.outbox);
    box.outbox.addLine = (thread, line) => (line.text === 'Hi.' ? Promise.reject(new Error('The disk is full.')) : addLine(thread, line));
    const keeping = await openLineKeeping({
      api: { createThread: () => Promise.resolve({ id: 'never' }), addLine: () => Promise.reject(new Error('gone')) },
      bot: 'sage',
      threadId: () => null,
      onThreadId: () => undefined,
      onWaiting: () => undefined,
      onProblem: (sentence) => problems.push(sentence),
      openOutbox: () => Promise.resolve(box.outbox),
    });
    keeping.keep(question);
    keeping.keep({ role: 'assistant', text: 'Hello again.', utteranceId: 2 });
    await expect.poll(() => box.kept.map((k) => k.line.text)).toEqual(['Hello again.']);
    expect(problems).toEqual(['A line could not be kept on this device: The disk is full.']);
  });
});
