/**
 * The stand-in offers a choice where one fits, so choices are seen with no key: something put on
 * "my list" is asked about — which list? — and the pick names the list it goes on.
 */
import { describe, expect, it } from 'vitest';
import { cutChoices } from '../../../common/conversation/choices';
import type { Sleep } from '../../../server/chat/standIn';
import { listOffer, pickedList } from '../../../server/chat/standInChoices';
import { standInModel } from '../../../server/chat/standInModel';
import type { PromptMessage, UpstreamEvent } from '../../../server/chat/upstream';
import lists from '../../../server/apps/lists/index';
import { createRegistry } from '../../../server/verbs/registry';
import { shippedWords } from '../../../server/words/loadWords';

const verbs = createRegistry([lists]).verbs;
const noWait: Sleep = () => Promise.resolve();
const OFFER = 'Which list?\n\n- Shopping\n- To-do';

async function answerTo(messages: readonly PromptMessage[]): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  for await (const event of standInModel(messages, { reason: 'no-provider', verbs, wordMs: 0, sleep: noWait, signal: new AbortController().signal }).events) events.push(event);
  return events;
}

describe('the stand-in’s offer', () => {
  it('asks which list, as an answer that ends in choices, when something goes on a list it does not name', async () => {
    expect(listOffer('Add milk to my list.', verbs)).toBe(OFFER);
    expect(cutChoices(OFFER)?.choices).toEqual({ question: 'Which list?', items: ['Shopping', 'To-do'] });
    const events = await answerTo([{ role: 'user', content: 'Please put eggs on the list' }]);
    expect(events.map((e) => (e.type === 'delta' ? e.text : '')).join('')).toBe(OFFER);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('asks in the person’s language', () => {
    expect(listOffer('add milk to my list', verbs, shippedWords().wordsIn('de'))).toBe('Welche Liste?\n\n- Einkaufen\n- Aufgaben');
  });

  it('asks nothing of a list named, or where no list can be added to', () => {
    expect(listOffer('add milk to my shopping list', verbs)).toBeUndefined();
    expect(listOffer('add milk to my list', [])).toBeUndefined();
  });

  it('puts the thing on the list picked, pressed or said as the choice’s words', async () => {
    const asked: PromptMessage[] = [
      { role: 'user', content: 'Add milk to my list.' },
      { role: 'assistant', content: OFFER },
    ];
    expect(pickedList([...asked, { role: 'user', content: 'Shopping' }])).toBe('add milk to my shopping list');
    expect(pickedList([...asked, { role: 'user', content: 'to-do list' }])).toBe('add milk to my todo list');
    const events = await answerTo([...asked, { role: 'user', content: 'To-do' }]);
    const called = events.flatMap((e) => (e.type === 'tool-call' ? [e.piece] : []));
    expect(called[0]?.name).toBe('lists-add');
    expect(JSON.parse(called.map((piece) => piece.arguments ?? '').join(''))).toEqual({ list: 'todo', items: ['milk'] });
  });

  it('takes nothing else for a pick: another answer before it, or words that are no choice', () => {
    expect(pickedList([{ role: 'user', content: 'Add milk to my list.' }, { role: 'assistant', content: 'Something else.' }, { role: 'user', content: 'Shopping' }])).toBeUndefined();
    expect(pickedList([{ role: 'user', content: 'Add milk to my list.' }, { role: 'assistant', content: OFFER }, { role: 'user', content: 'Groceries' }])).toBeUndefined();
    expect(pickedList([{ role: 'user', content: 'Shopping' }])).toBeUndefined();
  });
});
