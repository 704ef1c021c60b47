/**
 * The door's own words in the person's language: a turn sent with `x-confab-language: es` to a bot
 * that speaks Spanish hears the filler, the confirmation's prompt and a cut answer's ending in
 * Spanish; a bot's own `words:` win; a language the bot does not speak gets the bot's own. An
 * app's own sentences (a change's consequence, its question) are said in the person's language too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lists from '../../../server/apps/lists/index';
import { parseBotFile } from '../../../server/bots';
import { createRegistry } from '../../../server/verbs/registry';
import { BOT, Person, pantry, startActingDoor } from './actingDoor';
import type { ActingDoor } from './actingDoor';
import type { Received, Reply } from './localServers';

const SPANISH = BOT.replace('apps: [pantry]', 'apps: [pantry]\nlanguages: [en, es]');
const ONCE = SPANISH.replace('perMinute: { answers: 1000 }', 'perMinute: { answers: 1 }');
const OWN_WORDS = SPANISH.replace('---\nYou', 'words: { es: { acting: { filler: "Déjame mirar." } } }\n---\nYou');

/** A turn from a page set to Spanish. */
const es = { headers: { 'x-confab-language': 'es' } };

type Sent = { role: string };
const answered = (received: Received) => (received.body.messages as Sent[]).some((m) => m.role === 'tool');

/** Calls `name` with `args` first, then says "Listo." once it has the result; `always`: calls it every time. */
const calling = (name: string, args: object, always = false) => (reply: Reply, received: Received) => {
  if (always || !answered(received)) {
    reply.toolCalls([{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } }]);
    reply.finish('tool_calls');
  } else {
    reply.token('Listo.');
    reply.finish();
  }
  reply.done();
};

describe('the door’s words in the person’s language', () => {
  let door: ActingDoor;
  let person: Person;

  beforeAll(async () => {
    door = await startActingDoor({
      overrides: {
        bots: new Map([
          ['pantry-bot', parseBotFile('pantry-bot.md', SPANISH)],
          ['own-words', parseBotFile('own-words.md', OWN_WORDS)],
          ['once', parseBotFile('once.md', ONCE)],
        ]),
      },
    });
    person = new Person(door.url);
  });
  afterAll(async () => {
    await door.close();
  });

  it('says the filler in Spanish while a verb keeps the person waiting', async () => {
    door.script(calling('pantry-slow', { ms: 1000 }));
    const heard = await person.ask(await person.start(), 'mira la despensa despacio', es);
    expect(heard.text).toBe('Un momento. Listo.');
  });

  it('asks for a confirmation with the Spanish prompt', async () => {
    door.script(calling('pantry-empty', {}));
    const heard = await person.ask(await person.start(), 'vacía la despensa', es);
    const confirm = heard.events.find((e) => e.event === 'confab.confirm');
    expect(confirm?.data).toMatchObject({ question: 'Empty the pantry? Di sí o no.' });
  });

  it('ends an answer out of steps in Spanish', async () => {
    door.script(calling('pantry-count', {}, true));
    const heard = await person.ask(await person.start(), 'cuenta', es);
    expect(heard.text).toContain('Tuve que parar aquí: hacían falta más pasos de los que permite una sola respuesta.');
  });

  it('says the ceiling’s refusal in Spanish', async () => {
    const grant = await person.start('once');
    await person.ask(grant, 'hola', es);
    const refused = await person.ask(grant, 'otra vez', es);
    expect(refused.text).toMatch(/^Son todas las respuestas que este bot da en un minuto \(1\); la siguiente queda libre dentro de \d+ segundos?\.$/);
  });

  it('says a bot’s own words over the defaults', async () => {
    door.script(calling('pantry-slow', { ms: 1000 }));
    const heard = await person.ask(await person.start('own-words'), 'mira la despensa despacio', es);
    expect(heard.text).toBe('Déjame mirar. Listo.');
  });

  it('speaks the bot’s own language when the page’s is one the bot does not speak, or none', async () => {
    door.script(calling('pantry-slow', { ms: 1000 }));
    expect((await person.ask(await person.start(), 'look slowly', { headers: { 'x-confab-language': 'fr' } })).text).toBe('One moment. Listo.');
    expect((await person.ask(await person.start(), 'look slowly')).text).toBe('One moment. Listo.');
  });
});

describe('an app’s words in the person’s language', () => {
  const LISTS = SPANISH.replace('name: Pantry', 'name: Lists').replace('apps: [pantry]', 'apps: [lists]');
  let door: ActingDoor;
  let person: Person;
  beforeAll(async () => {
    door = await startActingDoor({ overrides: { registry: createRegistry([pantry, lists]), bots: new Map([['lists-bot', parseBotFile('lists-bot.md', LISTS)]]) } });
    person = new Person(door.url);
  });
  afterAll(async () => {
    await door.close();
  });

  it('says what a change left in Spanish after the model’s own words, asks before clearing in Spanish, and answers the yes in Spanish', async () => {
    door.script(calling('lists-add', { list: 'shopping', items: ['leche'] }));
    expect((await person.ask(await person.start('lists-bot'), 'añade leche a la lista de la compra', es)).text).toBe('Listo. Ahora hay 1 cosa en tu lista de la compra.');
    door.script(calling('lists-clear', { list: 'shopping' }));
    const heard = await person.ask(await person.start('lists-bot'), 'vacía la lista de la compra', es);
    const confirm = heard.events.find((e) => e.event === 'confab.confirm')?.data as { id: string; question: string };
    expect(confirm.question).toBe('¿Vacío tu lista de la compra? Di sí o no.');
    // The yes is answered in the language the question was asked in, the list's consequence too.
    const settled = await person.call(`/api/actions/${confirm.id}/approve`, { method: 'POST' });
    expect(await settled.json()).toEqual({ outcome: 'done', sentence: 'Hecho. Tu lista de la compra está vacía ahora.' });
  });

  it('says them in English to a turn in English', async () => {
    door.script(calling('lists-add', { list: 'todo', items: ['call mum'] }));
    expect((await person.ask(await person.start('lists-bot'), 'add call mum to my to-do list')).text).toBe("Listo. That's 1 thing on your to-do list.");
  });
});

describe('the stand-in in the person’s language', () => {
  let door: ActingDoor;
  beforeAll(async () => {
    door = await startActingDoor({ live: false, overrides: { bots: new Map([['pantry-bot', parseBotFile('pantry-bot.md', SPANISH)]]) } });
  });
  afterAll(async () => {
    await door.close();
  });

  it('says why it is standing in, in Spanish', async () => {
    const person = new Person(door.url);
    const heard = await person.ask(await person.start(), 'hola', { headers: { 'x-confab-language': 'es' } });
    expect(heard.text).toContain('Soy un sustituto, no el modelo de verdad');
    expect(heard.text).toContain('Te he oído decir: «hola».');
  });
});
