import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import memory, { yourWords } from '../../../server/apps/memory/index';
import { forgetWords } from '../../../server/apps/memory/remembered';
import type { Database } from '../../../server/db/database';
import { RefusedError } from '../../../server/db/errors';
import { listMemories, recall, rememberLine } from '../../../server/db/memories';
import { hashEmbedder } from '../../../server/memory/embed';
import type { Embedder } from '../../../server/memory/embed';
import { VerbInputError } from '../../../server/verbs/errors';
import { createRegistry } from '../../../server/verbs/registry';
import { askedFirst, callVerb, standInCall, standInSays, verbOf } from '../../helpers/verbContext';
import { DB_TEST_MS, OPENING_MS, axis, openMemoryDatabase, somebody } from '../db/fixtures';

describe('memory', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  const call = (person: string, verb: string, input: unknown, bot = 'demo') => callVerb(db, memory, verb, input, { person, bot });
  const texts = async (person: string, bot = 'demo') => (await db.asPerson(person, (tx) => listMemories(tx, { bot }))).map((m) => m.text);

  it('passes the registry’s checks; forgetting is destructive but not asked about', () => {
    expect(() => createRegistry([memory])).not.toThrow();
    expect(verbOf(memory, 'memory.remember')).toMatchObject({ risk: 'write', deadlineMs: 5000 });
    expect(verbOf(memory, 'memory.forget')).toMatchObject({ risk: 'destructive' });
    expect(verbOf(memory, 'memory.forget').confirm).not.toBe(true);
  });

  it('remembers in the person’s name a memory they can list and the bot recalls, and nobody else sees', async () => {
    const ana = somebody();
    const kept = (await call(ana, 'memory.remember', { text: '  My sister is called Ana. ' })) as { id: string; text: string };
    expect(kept.text).toBe('My sister is called Ana');
    const listed = await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }));
    expect(listed).toMatchObject([{ id: kept.id, bot: 'demo', text: 'My sister is called Ana', embedder: hashEmbedder.name }]);
    const question = await hashEmbedder.embed("what is my sister's name");
    const recalled = await db.asServer((tx) => recall(tx, { person: ana, bot: 'demo', embedder: hashEmbedder.name, embedding: question, limit: 5, maxDistance: 0.9 }));
    expect(recalled.map((m) => m.id)).toEqual([kept.id]);
    const owner = await db.asServer((tx) => tx.query<{ person: string }>('select person from memories where id = $1', [kept.id]));
    expect(owner.rows).toEqual([{ person: ana }]);
    expect(await texts(somebody())).toEqual([]);
  });

  it('still refuses a plain insert into memories in a person’s transaction', async () => {
    const ana = somebody();
    await expect(
      db.asPerson(ana, (tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'forged', embedder: hashEmbedder.name, embedding: axis(0) })),
    ).rejects.toThrow(RefusedError);
    expect(await texts(ana)).toEqual([]);
  });

  it('refuses confab_remember outside a person’s transaction, where no person is set', async () => {
    await expect(db.asServer((tx) => tx.query("select confab_remember('demo', 'orphan', 'hash-v1', $1::vector)", [`[${Array.from(axis(0)).join(',')}]`]))).rejects.toThrow(
      RefusedError,
    );
  });

  it('refuses to remember words with nothing in them to embed, keeping nothing', async () => {
    const ana = somebody();
    const blank: Embedder = { name: 'blank', embed: () => Promise.resolve(new Float32Array(384)) };
    await expect(callVerb(db, memory, 'memory.remember', { text: '…' }, { person: ana, embedder: blank })).rejects.toThrow(
      new VerbInputError('There was nothing in that to remember; say it in words.'),
    );
    expect(await texts(ana)).toEqual([]);
  });

  it('forgets the memories for this bot that mention the words, in any case, and keeps only their digest', async () => {
    const ana = somebody();
    const bob = somebody();
    await call(ana, 'memory.remember', { text: 'My sister is called Ana' });
    await call(ana, 'memory.remember', { text: "My SISTER's birthday is in May" });
    await call(ana, 'memory.remember', { text: 'I like tea' });
    await call(ana, 'memory.remember', { text: 'my sister lives in Porto' }, 'coach');
    await call(bob, 'memory.remember', { text: 'my sister is Eve' });
    expect(await call(ana, 'memory.forget', { about: 'my sister' })).toMatchObject({ count: 2 });
    expect(await texts(ana)).toEqual(['I like tea']);
    expect(await texts(ana, 'coach')).toEqual(['my sister lives in Porto']);
    expect(await texts(bob)).toEqual(['my sister is Eve']);
    const digests = await db.asPerson(ana, (tx) => tx.query<{ bot: string }>('select bot from forgotten'));
    expect(digests.rows).toEqual([{ bot: 'demo' }, { bot: 'demo' }]);
    expect(await call(ana, 'memory.forget', { about: 'my sister' })).toMatchObject({ count: 0 });
  });

  it('matches whole words, so a word inside another word forgets nothing ("the" is not in "other" or "these")', async () => {
    const ana = somebody();
    const said = [
      'The dentist is on Friday',
      'I go to the gym on Mondays',
      'My other sister is Eve',
      'These shoes hurt my feet',
      'Mother visits on Sundays',
      'Theo is my neighbour',
      'I bathe the dog on Saturdays',
    ];
    for (const text of said) await call(ana, 'memory.remember', { text });
    // Any substring would have forgotten all seven.
    expect(await call(ana, 'memory.forget', { about: 'the' })).toMatchObject({ count: 3 });
    expect(await texts(ana)).toEqual(['Theo is my neighbour', 'Mother visits on Sundays', 'These shoes hurt my feet', 'My other sister is Eve']);
    expect(await call(ana, 'memory.forget', { about: 'sis' })).toMatchObject({ count: 0 });
    expect(await call(ana, 'memory.forget', { about: 'other sister' })).toMatchObject({ count: 1 });
    expect(await call(ana, 'memory.forget', { about: 'hurt feet' })).toMatchObject({ count: 0 });
    expect(await texts(ana)).toEqual(['Theo is my neighbour', 'Mother visits on Sundays', 'These shoes hurt my feet']);
  });

  it('counts a possessive as its word and punctuation as a boundary, either apostrophe, any case', async () => {
    const ana = somebody();
    for (const text of ["My sister's birthday is in May", 'my sister’s dog is Rex', 'Sister, brother and I', 'My sisterhood of the pants', "I don't like my sister-in-law"]) {
      await call(ana, 'memory.remember', { text });
    }
    expect(await call(ana, 'memory.forget', { about: 'SISTER' })).toMatchObject({ count: 4 });
    expect(await texts(ana)).toEqual(['My sisterhood of the pants']);
  });

  it.each([
    ["My sister's birthday.", ['my', 'sister', 'birthday']],
    ['don’t, DON\'T; do-not', ["don't", "don't", 'do', 'not']],
    ['Café au lait #3', ['café', 'au', 'lait', '3']],
    ['...', []],
  ])('reads the words of %j as %j', (text, words) => {
    expect(forgetWords(text)).toEqual(words);
  });

  it('asks first when more than one memory would go, naming the count and the subject; one or none is forgotten without a question', async () => {
    const ana = somebody();
    for (const text of ['My sister is called Ana', "My sister's birthday is in May", 'My sister lives in Porto', 'my sister likes tea', 'I like coffee']) {
      await call(ana, 'memory.remember', { text });
    }
    expect(await askedFirst(db, memory, 'memory.forget', { about: 'my sister' }, { person: ana })).toBe('Forget the 4 things you told me about your sister?');
    expect(await askedFirst(db, memory, 'memory.forget', { about: 'Porto' }, { person: ana })).toBeUndefined();
    expect(await askedFirst(db, memory, 'memory.forget', { about: 'the moon' }, { person: ana })).toBeUndefined();
    // Another person's or another bot's memories are not counted.
    expect(await askedFirst(db, memory, 'memory.forget', { about: 'my sister' }, { person: somebody() })).toBeUndefined();
    expect(await askedFirst(db, memory, 'memory.forget', { about: 'my sister' }, { person: ana, bot: 'coach' })).toBeUndefined();
  });

  it.each([
    ['es', 'mi hermana', '¿Olvido las 2 cosas que me contaste sobre mi hermana?'],
    ['fr', 'ma sœur', 'J’oublie les 2 choses que vous m’avez dites sur ma sœur ?'],
    ['de', 'meine Schwester', 'Soll ich die 2 Dinge vergessen, die du mir über meine Schwester gesagt hast?'],
    ['en-GB', 'my sister', 'Forget the 2 things you told me about your sister?'],
  ])('asks in the person’s language (%s), saying their words back as they said them', async (language, about, asked) => {
    const ana = somebody();
    for (const text of [`${about}: Ana`, `${about}: Porto`]) await call(ana, 'memory.remember', { text });
    expect(await askedFirst(db, memory, 'memory.forget', { about }, { person: ana, language })).toBe(asked);
  });

  it.each([
    ['my sister', 'your sister'],
    ['what I said to me about MY mum', 'what you said to you about your mum'],
    ['the dentist', 'the dentist'],
  ])('says %j back as %j', (said, back) => {
    expect(yourWords(said)).toBe(back);
  });

  it('takes "%" and "_" in what to forget as themselves, not as patterns', async () => {
    const ana = somebody();
    await call(ana, 'memory.remember', { text: 'I save 10% of my pay' });
    await call(ana, 'memory.remember', { text: 'I save 100 pounds a month' });
    expect(await call(ana, 'memory.forget', { about: '10%' })).toMatchObject({ count: 1 });
    expect(await texts(ana)).toEqual(['I save 100 pounds a month']);
  });

  it.each([
    ['Remember that my sister is called Ana.', 'memory.remember', { text: 'my sister is called ana' }],
    ['please remember my door code is 1234', 'memory.remember', { text: 'my door code is 1234' }],
    ['forget that my sister is called ana', 'memory.forget', { about: 'my sister is called ana' }],
    ['Forget what I said about my sister.', 'memory.forget', { about: 'my sister' }],
    ['forget what i told you about the dentist', 'memory.forget', { about: 'the dentist' }],
  ])('the stand-in hears %j as %s', (line, verb, input) => {
    expect(standInCall([memory], line)).toEqual({ verb, input });
  });

  it('says each result as one sentence, which the stand-in says as it is', async () => {
    const ana = somebody();
    const said = async (verb: string, input: unknown) => {
      const output = await call(ana, verb, input);
      expect(standInSays(memory, verb, output, input)).toBe((output as { said: string }).said);
      return (output as { said: string }).said;
    };
    expect(await said('memory.remember', { text: 'my sister is called ana' })).toBe("I'll remember that my sister is called ana.");
    expect(await said('memory.forget', { about: 'my sister' })).toBe("I've forgotten that.");
    expect(await said('memory.forget', { about: 'my sister' })).toBe('I had nothing like that to forget.');
    for (const text of ['tea at nine', 'tea with milk', 'green tea']) await call(ana, 'memory.remember', { text });
    expect(await said('memory.forget', { about: 'tea' })).toBe("I've forgotten 3 things you told me about that.");
  });

  it.each([
    ['es', 'Recordaré que mi hermana se llama Ana.', 'Lo he olvidado.', 'No tenía nada así que olvidar.', 'Dime con palabras qué debo olvidar.'],
    ['fr', 'Je retiendrai que mi hermana se llama Ana.', 'Je l’ai oublié.', 'Je n’avais rien de tel à oublier.', 'Dites avec des mots ce que je dois oublier.'],
    ['de', 'Ich merke mir: mi hermana se llama Ana.', 'Das habe ich vergessen.', 'Ich hatte nichts dergleichen zu vergessen.', 'Sag in Worten, was ich vergessen soll.'],
  ])('says each result and each refusal in the person’s language (%s)', async (language, remembered, forgot, nothing, refusal) => {
    const options = { person: somebody(), language };
    const said = async (verb: string, input: unknown) => ((await callVerb(db, memory, verb, input, options)) as { said: string }).said;
    expect(await said('memory.remember', { text: 'mi hermana se llama Ana.' })).toBe(remembered);
    expect(await said('memory.forget', { about: 'hermana' })).toBe(forgot);
    expect(await said('memory.forget', { about: 'hermana' })).toBe(nothing);
    await expect(callVerb(db, memory, 'memory.forget', { about: '---' }, options)).rejects.toThrow(new VerbInputError(refusal));
  });
});
