/**
 * Choices on the page: a press (or a pick said or typed) is taken by the server first and only then
 * sent as the person's words — the server's words — and a press told it is gone sends nothing and
 * says so under its choices. What the server says of offers is laid on the active conversation.
 */
import { describe, expect, it } from 'vitest';
import type { Offer } from '../../common/conversation/choices';
import type { Line } from '../../common/conversation/events';
import { hearingPicks, pageChoices } from '../../src/app/page/pageChoices';
import { createPageStore, openingState } from '../../src/app/page/pageStore';
import type { ConversationView } from '../../src/app/createConversation';
import type { PresenceEvents } from '../../src/app/presence';
import { createEmitter } from '../../src/core/emitter';
import type { Chosen } from '../../src/platform/conversationApi';

const offer: Offer = { id: 'line-1', question: 'Which list?', items: ['Shopping', 'To-do'], taken: null };
const lines: Line[] = [
  { role: 'user', text: 'Add milk to my list.', utteranceId: 1 },
  { role: 'assistant', text: 'Which list?', utteranceId: 1, offer },
];

/** A deferred answer to a press, settled by the test. */
function deferred() {
  let settle: (chosen: Chosen) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const promise = new Promise<Chosen>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

function page(options: { lines?: readonly Line[]; active?: boolean } = {}) {
  const store = createPageStore(openingState({ toldAboutListening: true, audioReady: true }));
  store.update({ conversation: { lines: options.lines ?? lines } as ConversationView });
  const asked: { offer: string; choice: number; via: string }[] = [];
  const answers: ReturnType<typeof deferred>[] = [];
  const sent: string[] = [];
  const marked: [string, number][] = [];
  const offered: [number, string, Offer][] = [];
  const presenceEvents = createEmitter<PresenceEvents>();
  const conversation = {
    taken: (id: string, taken: number) => marked.push([id, taken]),
    offer: (utteranceId: number, text: string, kept: Offer) => offered.push([utteranceId, text, kept]),
  };
  const choices = pageChoices({
    api: {
      choose: (id, choice, via) => {
        asked.push({ offer: id, choice, via });
        const answer = deferred();
        answers.push(answer);
        return answer.promise;
      },
    },
    store,
    conversation: { current: () => (options.active === false ? null : (conversation as never)) },
    keeping: { utteranceOf: (clientId) => (clientId === 'mine:1:assistant' ? 1 : null) },
    presenceEvents,
    send: (words) => sent.push(words),
    language: () => 'en',
  });
  return { store, choices, asked, answers, sent, marked, offered, presenceEvents };
}

/** Waits for the page's own handling of an answer: it was listening first, so it has run by then. */
const heardBy = (answer: ReturnType<typeof deferred> | undefined) => answer?.promise.then(() => undefined, () => undefined);

describe('a press', () => {
  it('is taken by the server first, then sent as the person’s words — the offer’s, as the server gave them', async () => {
    const p = page();
    p.choices.choose('line-1', 1);
    expect(p.asked).toEqual([{ offer: 'line-1', choice: 1, via: 'press' }]);
    expect(p.sent).toEqual([]);
    p.answers[0]?.settle({ outcome: 'taken', words: 'To-do' });
    await heardBy(p.answers[0]);
    expect(p.marked).toEqual([['line-1', 1]]);
    expect(p.sent).toEqual(['To-do']);
  });

  it('told the offer is gone sends nothing, says so under its choices, and marks the one taken', async () => {
    const p = page();
    p.choices.choose('line-1', 1);
    p.answers[0]?.settle({ outcome: 'gone', taken: 0 });
    await heardBy(p.answers[0]);
    expect(p.sent).toEqual([]);
    expect(p.marked).toEqual([['line-1', 0]]);
    expect(p.store.state().choiceProblem).toEqual({ offer: 'line-1', sentence: 'That choice has gone: another of your pages took one first.' });
  });

  it('that could not reach the server sends nothing and says why', async () => {
    const p = page();
    p.choices.choose('line-1', 0);
    p.answers[0]?.fail(new Error('The server could not be reached.'));
    await heardBy(p.answers[0]);
    expect(p.sent).toEqual([]);
    expect(p.store.state().choiceProblem).toEqual({ offer: 'line-1', sentence: 'The server could not be reached.' });
  });

  it('is one at a time: another while the first is under way is not asked', async () => {
    const p = page();
    p.choices.choose('line-1', 0);
    p.choices.choose('line-1', 1);
    expect(p.asked).toHaveLength(1);
    p.answers[0]?.settle({ outcome: 'taken', words: 'Shopping' });
    await heardBy(p.answers[0]);
    p.choices.choose('line-1', 1);
    expect(p.asked).toHaveLength(2);
  });
});

describe('a pick said or typed', () => {
  it('presses the open offer’s choice it names', () => {
    const p = page();
    expect(p.choices.picks('the second one')).toBe(true);
    expect(p.asked).toEqual([{ offer: 'line-1', choice: 1, via: 'voice' }]);
  });

  it('is no pick when it names none, or no offer is open', () => {
    expect(page().choices.picks('what time is it')).toBe(false);
    const spent = page({ lines: [...lines, { role: 'user', text: 'Shopping', utteranceId: 2 }] });
    expect(spent.choices.picks('shopping')).toBe(false);
    expect(spent.asked).toEqual([]);
  });

  it('heard by the recogniser is pressed, not asked, and leaves the live line', () => {
    const listeners: Record<string, ((value: string) => void)[]> = {};
    const recogniser = {
      start: () => undefined,
      stop: () => undefined,
      on: (event: string, listener: (value: string) => void) => {
        (listeners[event] ??= []).push(listener);
        return () => undefined;
      },
    };
    const heard: string[] = [];
    const picked = (text: string) => text === 'the second one';
    const port = hearingPicks(recogniser, picked);
    port.on('interim', (text) => heard.push(`interim:${text}`));
    port.on('final', (text) => heard.push(`final:${text}`));
    port.on('ended', () => heard.push('ended'));
    for (const listener of listeners.final ?? []) listener('the second one');
    for (const listener of listeners.final ?? []) listener('what time is it');
    for (const listener of listeners.ended ?? []) listener('');
    expect(heard).toEqual(['interim:', 'final:what time is it', 'ended']);
  });
});

describe('what the server says of offers', () => {
  it('lays an answer’s choices on the conversation here, when it is this conversation’s', () => {
    const p = page();
    p.presenceEvents.emit('offers', { kind: 'offer', threadId: 't', clientId: 'mine:1:assistant', text: 'Which list?', offer });
    p.presenceEvents.emit('offers', { kind: 'offer', threadId: 't', clientId: 'theirs:1:assistant', text: 'Which list?', offer });
    expect(p.offered).toEqual([[1, 'Which list?', offer]]);
    p.presenceEvents.emit('offers', { kind: 'choice', offer: 'line-1', taken: 0 });
    expect(p.marked).toEqual([['line-1', 0]]);
  });

  it('is left to the mirror while this page is not the active one', () => {
    const p = page({ active: false });
    p.presenceEvents.emit('offers', { kind: 'choice', offer: 'line-1', taken: 0 });
    expect(p.marked).toEqual([]);
  });
});
