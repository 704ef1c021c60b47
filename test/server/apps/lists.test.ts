import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lists, { LIST_MAX_ITEMS } from '../../../server/apps/lists/index';
import { itemKey, listName, splitItems } from '../../../server/apps/lists/names';
import type { Database } from '../../../server/db/database';
import { VerbInputError } from '../../../server/verbs/errors';
import { createRegistry } from '../../../server/verbs/registry';
import { askedFirst, callVerb, jsonSchemas, narrations, standInCall, standInSays, verbOf } from '../../helpers/verbContext';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

describe('lists', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  const call = (person: string, verb: string, input: unknown) => callVerb(db, lists, verb, input, { person });

  it('passes the registry’s checks, and every input field is described for the model', () => {
    expect(() => createRegistry([lists])).not.toThrow();
    for (const [name, { input }] of Object.entries(jsonSchemas(lists))) {
      const properties = (input as { properties: Record<string, { description?: string }> }).properties;
      for (const [field, schema] of Object.entries(properties)) expect(schema.description, `${name}.${field}`).toBeTruthy();
    }
    expect(verbOf(lists, 'lists.clear')).toMatchObject({ risk: 'destructive', confirm: true });
    expect(verbOf(lists, 'lists.read')).toMatchObject({ risk: 'read', deadlineMs: 2000 });
    expect(verbOf(lists, 'lists.add')).toMatchObject({ risk: 'write', deadlineMs: 5000 });
  });

  it.each([
    ['my shopping list', 'shopping'],
    ['  The Shopping List ', 'shopping'],
    ['shopping', 'shopping'],
    ['my to-do list', 'todo'],
    ['to do', 'todo'],
    ['Gift ideas', 'gift ideas'],
    ['my list', ''],
  ])('names the list %j as %j', (said, name) => {
    expect(listName(said)).toBe(name);
  });

  it('splits what a person lists on commas and "and", and compares items without case or a leading "the"', () => {
    expect(splitItems('milk, eggs, and bread')).toEqual(['milk', 'eggs', 'bread']);
    expect(splitItems('milk and eggs.')).toEqual(['milk', 'eggs']);
    expect(itemKey('The  Milk!')).toBe('milk');
  });

  it('adds items in order, never twice, and says which were already there', async () => {
    const ana = somebody();
    expect(await call(ana, 'lists.add', { list: 'my Shopping list', items: ['milk', 'eggs', 'Milk'] })).toEqual({
      list: 'shopping',
      added: ['milk', 'eggs'],
      alreadyThere: [],
    });
    expect(await call(ana, 'lists.add', { list: 'shopping', items: ['the milk', 'bread'] })).toEqual({
      list: 'shopping',
      added: ['bread'],
      alreadyThere: ['the milk'],
    });
    expect(await call(ana, 'lists.read', { list: 'shopping list' })).toEqual({ list: 'shopping', items: ['milk', 'eggs', 'bread'], total: 3 });
    const rows = await db.asServer((tx) => tx.query('select item from list_items where person = $1 order by seq', [ana]));
    expect(rows.rows).toEqual([{ item: 'milk' }, { item: 'eggs' }, { item: 'bread' }]);
  });

  it('keeps each named list apart, and reads an unknown list as empty', async () => {
    const ana = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk'] });
    await call(ana, 'lists.add', { list: 'my to-do list', items: ['call the dentist'] });
    expect(await call(ana, 'lists.read', { list: 'todo' })).toEqual({ list: 'todo', items: ['call the dentist'], total: 1 });
    expect(await call(ana, 'lists.read', { list: 'camping' })).toEqual({ list: 'camping', items: [], total: 0 });
  });

  it('takes items off and says which were not on the list', async () => {
    const ana = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk', 'eggs', 'bread'] });
    expect(await call(ana, 'lists.remove', { list: 'shopping', items: ['Eggs', 'jam'] })).toEqual({ list: 'shopping', removed: ['Eggs'], notThere: ['jam'] });
    expect(await call(ana, 'lists.read', { list: 'shopping' })).toMatchObject({ items: ['milk', 'bread'] });
  });

  it('clears a list after asking "Clear your shopping list?"', async () => {
    const ana = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk', 'eggs'] });
    expect(await askedFirst(db, lists, 'lists.clear', { list: 'my shopping list' }, { person: ana })).toBe('Clear your shopping list?');
    expect(await call(ana, 'lists.clear', { list: 'shopping' })).toEqual({ list: 'shopping', cleared: 2 });
    expect(await call(ana, 'lists.read', { list: 'shopping' })).toMatchObject({ items: [], total: 0 });
  });

  it("shows another person none of the lists, and cannot change or clear them", async () => {
    const ana = somebody();
    const bob = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk', 'eggs'] });
    expect(await call(bob, 'lists.read', { list: 'shopping' })).toEqual({ list: 'shopping', items: [], total: 0 });
    expect(await call(bob, 'lists.remove', { list: 'shopping', items: ['milk'] })).toMatchObject({ removed: [], notThere: ['milk'] });
    expect(await call(bob, 'lists.clear', { list: 'shopping' })).toEqual({ list: 'shopping', cleared: 0 });
    expect(await call(bob, 'lists.add', { list: 'shopping', items: ['milk'] })).toMatchObject({ added: ['milk'] });
    expect(await call(ana, 'lists.read', { list: 'shopping' })).toMatchObject({ items: ['milk', 'eggs'] });
  });

  it('refuses a list with no name and a list that is full, with a sentence to say', async () => {
    const ana = somebody();
    await expect(call(ana, 'lists.add', { list: 'my list', items: ['milk'] })).rejects.toThrow(new VerbInputError('Which list? Give it a name, like your shopping list.'));
    const many = Array.from({ length: 20 }, (_, i) => `thing ${i}`);
    for (let batch = 0; batch < LIST_MAX_ITEMS / 20; batch++) {
      await call(ana, 'lists.add', { list: 'big', items: many.map((item) => `${item} of ${batch}`) });
    }
    await expect(call(ana, 'lists.add', { list: 'big', items: ['one more'] })).rejects.toThrow(VerbInputError);
    expect(await call(ana, 'lists.read', { list: 'big' })).toMatchObject({ total: LIST_MAX_ITEMS });
  });

  it('narrates how many things the list has after a change, and nothing after a read', async () => {
    const ana = somebody();
    const narrate = async (verb: string, input: unknown) => narrations(db, lists, { verb, input, output: await call(ana, verb, input) }, { person: ana });
    expect(await narrate('lists.add', { list: 'shopping', items: ['milk'] })).toEqual(['That\'s 1 thing on your shopping list.']);
    expect(await narrate('lists.add', { list: 'shopping', items: ['eggs', 'bread', 'jam', 'tea'] })).toEqual(['That\'s 5 things on your shopping list.']);
    expect(await narrate('lists.read', { list: 'shopping' })).toEqual([]);
    expect(await narrate('lists.remove', { list: 'shopping', items: ['jam'] })).toEqual(['That\'s 4 things on your shopping list.']);
    expect(await narrate('lists.clear', { list: 'shopping' })).toEqual(['Your shopping list is empty now.']);
    expect(await narrate('lists.add', { list: 'todo', items: ['call mum'] })).toEqual(['That\'s 1 thing on your to-do list.']);
  });

  it.each([
    ['es', ['Ahora hay 1 cosa en tu lista de la compra.', 'Ahora hay 2 cosas en tu lista de la compra.', 'Ahora hay 1 cosa en tu lista «regalos».', 'Tu lista de la compra está vacía ahora.'], '¿Vacío tu lista de tareas?'],
    ['fr', ['Il y a maintenant 1 élément sur votre liste de courses.', 'Il y a maintenant 2 éléments sur votre liste de courses.', 'Il y a maintenant 1 élément sur votre liste « regalos ».', 'Votre liste de courses est vide maintenant.'], 'Je vide votre liste de tâches ?'],
    ['de', ['Deine Einkaufsliste hat jetzt 1 Eintrag.', 'Deine Einkaufsliste hat jetzt 2 Einträge.', 'Deine Liste „regalos“ hat jetzt 1 Eintrag.', 'Deine Einkaufsliste ist jetzt leer.'], 'Deine To-do-Liste leeren?'],
    ['es-MX', ['Ahora hay 1 cosa en tu lista de la compra.', 'Ahora hay 2 cosas en tu lista de la compra.', 'Ahora hay 1 cosa en tu lista «regalos».', 'Tu lista de la compra está vacía ahora.'], '¿Vacío tu lista de tareas?'],
    // A language the app has no words in is not answered in English: nothing is said.
    ['pt', ['', '', '', ''], ''],
  ])('narrates and asks in the person’s language (%s), and says nothing in one the app has no words in', async (language, said, asked) => {
    const ana = somebody();
    const narrate = async (verb: string, input: unknown) => narrations(db, lists, { verb, input, output: await call(ana, verb, input) }, { person: ana, language });
    expect([
      ...(await narrate('lists.add', { list: 'shopping', items: ['leche'] })),
      ...(await narrate('lists.add', { list: 'shopping', items: ['huevos'] })),
      ...(await narrate('lists.add', { list: 'regalos', items: ['libro'] })),
      ...(await narrate('lists.clear', { list: 'shopping' })),
    ]).toEqual(said);
    expect(await askedFirst(db, lists, 'lists.clear', { list: 'to do' }, { person: ana, language })).toBe(asked);
  });

  it.each([
    ['Add milk and eggs to my shopping list.', 'lists.add', { list: 'shopping', items: ['milk', 'eggs'] }],
    ['add milk, eggs, and bread to the shopping list', 'lists.add', { list: 'shopping', items: ['milk', 'eggs', 'bread'] }],
    ['put call the dentist on my todo list', 'lists.add', { list: 'todo', items: ['call the dentist'] }],
    ['put batteries on my list', 'lists.add', { list: 'shopping', items: ['batteries'] }],
    ['remove milk from my shopping list', 'lists.remove', { list: 'shopping', items: ['milk'] }],
    ['take eggs off my shopping list', 'lists.remove', { list: 'shopping', items: ['eggs'] }],
    ["What's on my shopping list?", 'lists.read', { list: 'shopping' }],
    ['what’s on my list', 'lists.read', { list: 'shopping' }],
    ['what is on my to do list', 'lists.read', { list: 'to do' }],
    ['read my shopping list', 'lists.read', { list: 'shopping' }],
    ['Clear my shopping list.', 'lists.clear', { list: 'shopping' }],
  ])('the stand-in hears %j as %s', (line, verb, input) => {
    expect(standInCall([lists], line)).toEqual({ verb, input });
  });

  it('the stand-in hears nothing to do in a line about something else', () => {
    expect(standInCall([lists], 'I went shopping yesterday')).toBeUndefined();
  });

  it.each([
    ['lists.add', { list: 'shopping', items: ['milk', 'eggs'] }, { list: 'shopping', added: ['milk', 'eggs'], alreadyThere: [] }, "I've added milk and eggs to your shopping list."],
    ['lists.add', { list: 'shopping', items: ['milk', 'eggs'] }, { list: 'shopping', added: ['eggs'], alreadyThere: ['milk'] }, "I've added eggs to your shopping list; milk was already on it."],
    ['lists.add', { list: 'shopping', items: ['milk', 'eggs'] }, { list: 'shopping', added: [], alreadyThere: ['milk', 'eggs'] }, 'Milk and eggs were already on your shopping list.'],
    ['lists.remove', { list: 'shopping', items: ['milk'] }, { list: 'shopping', removed: ['milk'], notThere: [] }, "I've taken milk off your shopping list."],
    ['lists.remove', { list: 'shopping', items: ['jam'] }, { list: 'shopping', removed: [], notThere: ['jam'] }, "Jam wasn't on your shopping list."],
    ['lists.read', { list: 'shopping' }, { list: 'shopping', items: ['milk', 'eggs'], total: 2 }, 'Your shopping list has milk and eggs.'],
    ['lists.read', { list: 'todo' }, { list: 'todo', items: [], total: 0 }, 'Your to-do list is empty.'],
    ['lists.clear', { list: 'shopping' }, { list: 'shopping', cleared: 3 }, "I've cleared your shopping list."],
  ])('the stand-in says %s’s result as one sentence', (verb, input, output, sentence) => {
    expect(standInSays(lists, verb, output, input)).toBe(sentence);
  });
});
