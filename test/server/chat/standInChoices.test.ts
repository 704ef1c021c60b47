/**
 * The stand-in offers a choice where one fits, so choices are seen with no key: something put on
 * "my list" is asked about — which list? — and the pick names the list it goes on, all in the
 * person's language (the ways of asking are `stand-in.adds-to-list` of the words files).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../server/bots';
import { cutChoices } from '../../../common/conversation/choices';
import type { Sleep } from '../../../server/chat/standIn';
import { listOffer, pickedList } from '../../../server/chat/standInChoices';
import { standInModel } from '../../../server/chat/standInModel';
import type { PromptMessage, UpstreamEvent } from '../../../server/chat/upstream';
import lists from '../../../server/apps/lists/index';
import { createRegistry } from '../../../server/verbs/registry';
import { shippedWords } from '../../../server/words/loadWords';
import { heardOf } from '../../helpers/doorHeard';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { OPENING_MS } from '../db/fixtures';
import { Person } from '../presence/presenceClient';

const verbs = createRegistry([lists]).verbs;
const noWait: Sleep = () => Promise.resolve();
const wordsIn = (language: string) => shippedWords().wordsIn(language);
const en = wordsIn('en');
const OFFER = 'Which list?\n\n- Shopping\n- To-do';

/** The offer, the asking and the picks in each language: what is asked, the offer, a pick of each list. */
const LANGUAGES = [
  { language: 'en', asked: 'Add milk and eggs to my list.', offer: OFFER, shopping: 'Shopping', todo: 'To-do', items: ['milk', 'eggs'] },
  { language: 'es', asked: 'Añade leche y huevos a mi lista.', offer: '¿Qué lista?\n\n- Compra\n- Tareas', shopping: 'Compra', todo: 'Tareas', items: ['leche', 'huevos'] },
  { language: 'fr', asked: 'Ajoute du lait et des œufs à ma liste !', offer: 'Quelle liste ?\n\n- Courses\n- À faire', shopping: 'Courses', todo: 'À faire', items: ['du lait', 'des œufs'] },
  { language: 'de', asked: 'Setz Milch und Eier auf meine Liste.', offer: 'Welche Liste?\n\n- Einkaufen\n- Aufgaben', shopping: 'Einkaufen', todo: 'Aufgaben', items: ['milch', 'eier'] },
] as const;

async function answerTo(messages: readonly PromptMessage[], language = 'en'): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  const model = standInModel(messages, { reason: 'no-provider', verbs, words: wordsIn(language), language, wordMs: 0, sleep: noWait, signal: new AbortController().signal });
  for await (const event of model.events) events.push(event);
  return events;
}

/** The lists verb's input in the call the stand-in streamed. */
function calledWith(events: readonly UpstreamEvent[]): { name: string | undefined; input: unknown } {
  const pieces = events.flatMap((e) => (e.type === 'tool-call' ? [e.piece] : []));
  return { name: pieces[0]?.name, input: JSON.parse(pieces.map((piece) => piece.arguments ?? '').join('')) as unknown };
}

describe('the stand-in’s offer', () => {
  it('asks which list, as an answer that ends in choices, when something goes on a list it does not name', async () => {
    expect(listOffer('Add milk to my list.', verbs, en)).toBe(OFFER);
    expect(cutChoices(OFFER)?.choices).toEqual({ question: 'Which list?', items: ['Shopping', 'To-do'] });
    const events = await answerTo([{ role: 'user', content: 'Please put eggs on the list' }]);
    expect(events.map((e) => (e.type === 'delta' ? e.text : '')).join('')).toBe(OFFER);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it.each(LANGUAGES)('asks in $language, heard in one of the ways its words give', async ({ language, asked, offer }) => {
    expect(listOffer(asked, verbs, wordsIn(language))).toBe(offer);
    const events = await answerTo([{ role: 'user', content: asked }], language);
    expect(events.map((e) => (e.type === 'delta' ? e.text : '')).join('')).toBe(offer);
  });

  it('hears each language’s own ways only, and a language with no words file not at all', () => {
    expect(listOffer('¡Pon pan en la lista!', verbs, wordsIn('es'))).toBeDefined();
    expect(listOffer('Füge Brot zu meiner Liste hinzu', verbs, wordsIn('de'))).toBeDefined();
    expect(listOffer('Mettez du pain sur la liste', verbs, wordsIn('fr'))).toBeDefined();
    expect(listOffer('añade leche a mi lista', verbs, en)).toBeUndefined();
    expect(listOffer('add milk to my list', verbs, wordsIn('es'))).toBeUndefined();
    expect(listOffer('add milk to my list', verbs, wordsIn('xx'))).toBeUndefined();
  });

  it('asks nothing of a list named, or where no list can be added to', () => {
    expect(listOffer('add milk to my shopping list', verbs, en)).toBeUndefined();
    expect(listOffer('añade leche a mi lista de la compra', verbs, wordsIn('es'))).toBeUndefined();
    expect(listOffer('add milk to my list', [], en)).toBeUndefined();
  });

  it.each(LANGUAGES)('puts the things on the list picked in $language, pressed or said as the choice’s words', async ({ language, asked, offer, shopping, todo, items }) => {
    const before: PromptMessage[] = [
      { role: 'user', content: asked },
      { role: 'assistant', content: offer },
    ];
    const words = wordsIn(language);
    expect(pickedList([...before, { role: 'user', content: shopping }], verbs, words, language)?.input).toEqual({ list: 'shopping', items });
    expect(pickedList([...before, { role: 'user', content: todo.toLowerCase() }], verbs, words, language)?.input).toEqual({ list: 'todo', items });
    const called = calledWith(await answerTo([...before, { role: 'user', content: todo }], language));
    expect(called).toEqual({ name: 'lists-add', input: { list: 'todo', items } });
  });

  it('takes a pick said with a few words around the choice’s own: "the to-do list", "la compra"', () => {
    const before: PromptMessage[] = [
      { role: 'user', content: 'Add milk to my list.' },
      { role: 'assistant', content: OFFER },
    ];
    expect(pickedList([...before, { role: 'user', content: 'the to-do list' }], verbs, en, 'en')?.input).toEqual({ list: 'todo', items: ['milk'] });
    const spanish: PromptMessage[] = [
      { role: 'user', content: 'añade leche a mi lista' },
      { role: 'assistant', content: '¿Qué lista?\n\n- Compra\n- Tareas' },
      { role: 'user', content: 'La compra.' },
    ];
    expect(pickedList(spanish, verbs, wordsIn('es'), 'es')?.input).toEqual({ list: 'shopping', items: ['leche'] });
  });

  it('takes nothing else for a pick: another answer before it, words that are no choice, or a long line that only mentions one', () => {
    const pick = (messages: PromptMessage[]) => pickedList(messages, verbs, en, 'en');
    expect(pick([{ role: 'user', content: 'Add milk to my list.' }, { role: 'assistant', content: 'Something else.' }, { role: 'user', content: 'Shopping' }])).toBeUndefined();
    expect(pick([{ role: 'user', content: 'Add milk to my list.' }, { role: 'assistant', content: OFFER }, { role: 'user', content: 'Groceries' }])).toBeUndefined();
    expect(pick([{ role: 'user', content: 'Add milk to my list.' }, { role: 'assistant', content: OFFER }, { role: 'user', content: 'what is on my shopping list right now' }])).toBeUndefined();
    expect(pick([{ role: 'user', content: 'Shopping' }])).toBeUndefined();
    expect(pickedList([{ role: 'user', content: 'Add milk to my list.' }, { role: 'assistant', content: OFFER }, { role: 'user', content: 'Shopping' }], [], en, 'en')).toBeUndefined();
  });
});

describe('the stand-in’s offer through the door, with no key', { timeout: 60_000 }, () => {
  let api: TestBackend;

  beforeAll(async () => {
    api = await openTestBackend({ bots: await loadBots(join(import.meta.dirname, '..', '..', '..', 'bots')), registry: createRegistry([lists]) });
  }, OPENING_MS);
  afterAll(() => api.close());

  it('asks a person speaking Spanish in Spanish, and puts what they asked for on the list they pick', async () => {
    const person = new Person(api.app);
    const grant = await person.start('demo');
    const headers = { authorization: `Bearer ${grant}`, 'x-confab-conversation': 'choices-es', 'x-confab-language': 'es' };
    const turn = async (messages: PromptMessage[]) => (await heardOf(await person.call('/v1/chat/completions', { body: { stream: true, messages }, headers }))).text;
    const asked: PromptMessage = { role: 'user', content: 'Añade leche a mi lista' };
    const offer = await turn([asked]);
    expect(offer).toBe('¿Qué lista?\n\n- Compra\n- Tareas');
    expect(await turn([asked, { role: 'assistant', content: offer }, { role: 'user', content: 'Compra' }])).toContain('He añadido leche a tu lista de la compra.');
  });
});
