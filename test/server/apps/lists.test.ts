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
      said: "I've added milk and eggs to your shopping list.",
    });
    expect(await call(ana, 'lists.add', { list: 'shopping', items: ['the milk', 'bread'] })).toEqual({
      list: 'shopping',
      added: ['bread'],
      alreadyThere: ['the milk'],
      said: "I've added bread to your shopping list; the milk was already on it.",
    });
    expect(await call(ana, 'lists.read', { list: 'shopping list' })).toEqual({ list: 'shopping', items: ['milk', 'eggs', 'bread'], total: 3, said: 'Your shopping list has milk, eggs, and bread.' });
    const rows = await db.asServer((tx) => tx.query('select item from list_items where person = $1 order by seq', [ana]));
    expect(rows.rows).toEqual([{ item: 'milk' }, { item: 'eggs' }, { item: 'bread' }]);
  });

  it('keeps each named list apart, and reads an unknown list as empty', async () => {
    const ana = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk'] });
    await call(ana, 'lists.add', { list: 'my to-do list', items: ['call the dentist'] });
    expect(await call(ana, 'lists.read', { list: 'todo' })).toMatchObject({ list: 'todo', items: ['call the dentist'], total: 1 });
    expect(await call(ana, 'lists.read', { list: 'camping' })).toEqual({ list: 'camping', items: [], total: 0, said: 'Your camping list is empty.' });
  });

  it('takes items off and says which were not on the list', async () => {
    const ana = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk', 'eggs', 'bread'] });
    expect(await call(ana, 'lists.remove', { list: 'shopping', items: ['Eggs', 'jam'] })).toEqual({
      list: 'shopping',
      removed: ['Eggs'],
      notThere: ['jam'],
      said: "I've taken Eggs off your shopping list; jam wasn't on it.",
    });
    expect(await call(ana, 'lists.read', { list: 'shopping' })).toMatchObject({ items: ['milk', 'bread'] });
  });

  it('clears a list after asking "Clear your shopping list?"', async () => {
    const ana = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk', 'eggs'] });
    expect(await askedFirst(db, lists, 'lists.clear', { list: 'my shopping list' }, { person: ana })).toBe('Clear your shopping list?');
    expect(await call(ana, 'lists.clear', { list: 'shopping' })).toEqual({ list: 'shopping', cleared: 2, said: "I've cleared your shopping list." });
    expect(await call(ana, 'lists.read', { list: 'shopping' })).toMatchObject({ items: [], total: 0 });
  });

  it("shows another person none of the lists, and cannot change or clear them", async () => {
    const ana = somebody();
    const bob = somebody();
    await call(ana, 'lists.add', { list: 'shopping', items: ['milk', 'eggs'] });
    expect(await call(bob, 'lists.read', { list: 'shopping' })).toMatchObject({ list: 'shopping', items: [], total: 0 });
    expect(await call(bob, 'lists.remove', { list: 'shopping', items: ['milk'] })).toMatchObject({ removed: [], notThere: ['milk'] });
    expect(await call(bob, 'lists.clear', { list: 'shopping' })).toMatchObject({ list: 'shopping', cleared: 0 });
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

  it('says each result as one sentence, which the stand-in says as it is', async () => {
    const ana = somebody();
    const said = async (verb: string, input: unknown) => {
      const output = await call(ana, verb, input);
      expect(standInSays(lists, verb, output, input)).toBe((output as { said: string }).said);
      return (output as { said: string }).said;
    };
    expect(await said('lists.read', { list: 'todo' })).toBe('Your to-do list is empty.');
    expect(await said('lists.add', { list: 'shopping', items: ['milk'] })).toBe("I've added milk to your shopping list.");
    expect(await said('lists.add', { list: 'shopping', items: ['milk', 'eggs'] })).toBe("I've added eggs to your shopping list; milk was already on it.");
    expect(await said('lists.add', { list: 'shopping', items: ['milk', 'eggs'] })).toBe('Milk and eggs were already on your shopping list.');
    expect(await said('lists.remove', { list: 'shopping', items: ['jam'] })).toBe("Jam wasn't on your shopping list.");
    expect(await said('lists.remove', { list: 'shopping', items: ['jam', 'tea'] })).toBe("Jam and tea weren't on your shopping list.");
    expect(await said('lists.remove', { list: 'shopping', items: ['milk'] })).toBe("I've taken milk off your shopping list.");
    expect(await said('lists.read', { list: 'shopping' })).toBe('Your shopping list has eggs.');
    const many = Array.from({ length: 12 }, (_, i) => `thing ${i + 1}`);
    await call(ana, 'lists.add', { list: 'gifts', items: many });
    expect(await said('lists.read', { list: 'gifts' })).toBe(`Your gifts list has 12 things, starting with ${many.slice(0, 9).join(', ')}, and thing 10.`);
    expect(await said('lists.clear', { list: 'gifts' })).toBe("I've cleared your gifts list.");
    expect(await said('lists.clear', { list: 'gifts' })).toBe('Your gifts list was already empty.');
  });

  it.each([
    ['es', ["He añadido leche y huevos a tu lista de la compra.", 'Leche ya estaba en tu lista de la compra.', 'He quitado huevos de tu lista de la compra; pan no estaba.', 'En tu lista de la compra hay leche.', 'He vaciado tu lista de la compra.'], '¿Qué lista? Dale un nombre, como tu lista de la compra.'],
    ['fr', ['J’ai ajouté leche et huevos à votre liste de courses.', 'Leche était déjà sur votre liste de courses.', 'J’ai retiré huevos de votre liste de courses ; pan n’y était pas.', 'Sur votre liste de courses, il y a leche.', 'J’ai vidé votre liste de courses.'], 'Quelle liste ? Donnez-lui un nom, comme votre liste de courses.'],
    ['de', ['Ich habe leche und huevos auf deine Einkaufsliste gesetzt.', 'Leche stand schon auf der Liste.', 'Ich habe huevos von der Liste genommen; pan stand nicht drauf.', 'Deine Einkaufsliste enthält leche.', 'Ich habe deine Einkaufsliste geleert.'], 'Welche Liste? Gib ihr einen Namen, etwa „Einkaufsliste“.'],
  ])('says each result and each refusal in the person’s language (%s)', async (language, sentences, refusal) => {
    const ana = somebody();
    const said = async (verb: string, input: unknown) => ((await callVerb(db, lists, verb, input, { person: ana, language })) as { said: string }).said;
    expect([
      await said('lists.add', { list: 'shopping', items: ['leche', 'huevos'] }),
      await said('lists.add', { list: 'shopping', items: ['leche'] }),
      await said('lists.remove', { list: 'shopping', items: ['huevos', 'pan'] }),
      await said('lists.read', { list: 'shopping' }),
      await said('lists.clear', { list: 'shopping' }),
    ]).toEqual(sentences);
    await expect(callVerb(db, lists, 'lists.add', { list: 'my list', items: ['leche'] }, { person: ana, language })).rejects.toThrow(new VerbInputError(refusal));
  });
});
