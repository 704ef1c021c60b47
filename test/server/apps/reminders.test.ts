import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import reminders, { PENDING_MAX } from '../../../server/apps/reminders/index';
import { dueFrom, whenSaid } from '../../../server/apps/reminders/when';
import type { Database } from '../../../server/db/database';
import { markDelivered, scheduleNotice } from '../../../server/db/notices';
import { VerbInputError } from '../../../server/verbs/errors';
import { createRegistry } from '../../../server/verbs/registry';
import { TUESDAY_MS, callVerb, narrations, standInCall, standInSays, verbOf } from '../../helpers/verbContext';
import type { CallOptions } from '../../helpers/verbContext';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

const MINUTE_MS = 60_000;

describe('reminders', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  const call = (verb: string, input: unknown, options: CallOptions) => callVerb(db, reminders, verb, input, options);
  const noticesOf = (person: string) =>
    db.asServer(async (tx) => (await tx.query<{ bot: string; app: string; text: string; due_at: Date }>('select bot, app, text, due_at from notices where person = $1 order by due_at', [person])).rows);

  it('passes the registry’s checks', () => {
    expect(() => createRegistry([reminders])).not.toThrow();
    expect(verbOf(reminders, 'reminders.set')).toMatchObject({ risk: 'write', deadlineMs: 5000 });
    expect(verbOf(reminders, 'reminders.list')).toMatchObject({ risk: 'read', deadlineMs: 2000 });
  });

  it('keeps a reminder as a notice for the bot’s page to say, due after the delay', async () => {
    const ana = somebody();
    const set = await call('reminders.set', { text: 'take the tea out.', inSeconds: 600 }, { person: ana });
    expect(set).toMatchObject({ text: 'take the tea out', dueAt: '2026-12-01T15:15:00+00:00', inWords: 'in 10 minutes' });
    expect(await noticesOf(ana)).toEqual([{ bot: 'demo', app: 'reminders', text: 'Reminder: take the tea out.', due_at: new Date(TUESDAY_MS + 10 * MINUTE_MS) }]);
  });

  it('reads "19:30" in New York as this evening there, and "09:00" as tomorrow morning once nine has passed', async () => {
    // 15:05 UTC is 10:05 in New York (UTC−5 in December).
    const options = { person: somebody(), timeZone: 'America/New_York' };
    expect(await call('reminders.set', { text: 'call mum', at: '19:30' }, options)).toMatchObject({ dueAt: '2026-12-01T19:30:00-05:00', inWords: 'at 7:30 pm' });
    expect(await call('reminders.set', { text: 'water the plants', at: '09:00' }, options)).toMatchObject({ dueAt: '2026-12-02T09:00:00-05:00', inWords: 'at 9 am tomorrow' });
    expect((await noticesOf(options.person)).map((n) => n.due_at.toISOString())).toEqual(['2026-12-02T00:30:00.000Z', '2026-12-02T14:00:00.000Z']);
  });

  it('reads times in Kolkata at its half-hour offset (UTC+05:30)', () => {
    // 15:05 UTC is 20:35 in Kolkata.
    expect(dueFrom({ at: '21:15' }, TUESDAY_MS, 'Asia/Kolkata')).toEqual({ dueAtMs: Date.UTC(2026, 11, 1, 15, 45), inWords: 'at 9:15 pm' });
    expect(dueFrom({ at: '20:00' }, TUESDAY_MS, 'Asia/Kolkata')).toEqual({ dueAtMs: Date.UTC(2026, 11, 2, 14, 30), inWords: 'at 8 pm tomorrow' });
    expect(dueFrom({ at: '2026-12-05T08:00' }, TUESDAY_MS, 'Asia/Kolkata')).toEqual({ dueAtMs: Date.UTC(2026, 11, 5, 2, 30), inWords: 'at 8 am on Saturday, 5 December' });
    expect(dueFrom({ at: '2026-12-05T08:00:00Z' }, TUESDAY_MS, 'Asia/Kolkata').dueAtMs).toBe(Date.UTC(2026, 11, 5, 8, 0));
  });

  it(`holds ${String(PENDING_MAX)} waiting reminders when a person sets more at the same moment: as many as there is room for, the rest told so`, async () => {
    const eve = somebody();
    await db.asPerson(eve, async (tx) => {
      for (let i = 0; i < PENDING_MAX - 2; i += 1) await scheduleNotice(tx, { person: eve, bot: 'demo', app: 'reminders', text: `Reminder: ${String(i)}.`, dueAtMs: TUESDAY_MS + (i + 1) * MINUTE_MS });
    });
    const asked = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => call('reminders.set', { text: `stretch ${String(i)}`, inSeconds: 600 }, { person: eve })));
    expect(asked.filter((one) => one.status === 'fulfilled')).toHaveLength(2);
    const refused = asked.flatMap((one) => (one.status === 'rejected' ? [(one.reason as Error).message] : []));
    expect(refused).toEqual(Array.from({ length: 4 }, () => `You already have ${String(PENDING_MAX)} reminders waiting; cancel some before setting more.`));
    expect(await noticesOf(eve)).toHaveLength(PENDING_MAX);
  });

  it('keeps the wall-clock time across a change of the clocks', () => {
    // Saturday 7 March 2026, 15:00 in New York; the clocks go forward at 2 am on Sunday.
    const saturdayMs = Date.UTC(2026, 2, 7, 20, 0);
    expect(dueFrom({ at: '10:00' }, saturdayMs, 'America/New_York')).toEqual({ dueAtMs: Date.UTC(2026, 2, 8, 14, 0), inWords: 'at 10 am tomorrow' });
    // 2:30 that night never happens on the wall clock: it lands at 3:30, an hour on.
    expect(dueFrom({ at: '2026-03-08T02:30' }, saturdayMs, 'America/New_York').dueAtMs).toBe(Date.UTC(2026, 2, 8, 7, 30));
  });

  it.each([
    [{}, 'A reminder needs a time: say in how long, or at what time.'],
    [{ inSeconds: 60, at: '19:30' }, 'Give a reminder either a delay or a time, not both.'],
    [{ at: '2026-11-30T09:00' }, 'That time has already passed; give a time still to come.'],
    [{ at: '2028-01-01T09:00' }, 'That is more than a year away; a reminder can be at most a year ahead.'],
    [{ at: '2027-02-30T09:00' }, 'That date does not exist; check the day and the month.'],
  ])('refuses %j with a sentence to say, keeping nothing', async (when, sentence) => {
    const ana = somebody();
    await expect(call('reminders.set', { text: 'something', ...when }, { person: ana })).rejects.toThrow(new VerbInputError(sentence));
    expect(await noticesOf(ana)).toEqual([]);
  });

  it('refuses a time of day past 23:59 and a delay of nothing by the schema', () => {
    const input = verbOf(reminders, 'reminders.set').input;
    expect(input.safeParse({ text: 'x', at: '25:00' }).success).toBe(false);
    expect(input.safeParse({ text: 'x', at: 'tomorrow' }).success).toBe(false);
    expect(input.safeParse({ text: 'x', inSeconds: 0 }).success).toBe(false);
    expect(input.safeParse({ text: 'x', at: '7:30' }).success).toBe(true);
  });

  it('lists the waiting reminders with this bot soonest first, and none of another bot’s or another person’s', async () => {
    const ana = somebody();
    const options = { person: ana, timeZone: 'Europe/Lisbon' };
    await call('reminders.set', { text: 'call mum', at: '19:30' }, options);
    await call('reminders.set', { text: 'take the tea out', inSeconds: 600 }, options);
    await call('reminders.set', { text: 'for the coach', inSeconds: 60 }, { ...options, bot: 'coach' });
    await call('reminders.set', { text: "bob's", inSeconds: 60 }, { person: somebody() });
    const listed = await call('reminders.list', {}, options);
    expect(listed).toMatchObject({
      reminders: [
        { text: 'take the tea out', inWords: 'in 10 minutes', dueAt: '2026-12-01T15:15:00+00:00' },
        { text: 'call mum', inWords: 'at 7:30 pm', dueAt: '2026-12-01T19:30:00+00:00' },
      ],
      total: 2,
    });
    expect(await call('reminders.list', {}, { person: somebody() })).toEqual({ reminders: [], total: 0, said: 'You have no reminders coming up.' });
  });

  it('cancels the waiting reminders whose words contain the text, in any case, and no one else’s', async () => {
    const ana = somebody();
    const bob = somebody();
    await call('reminders.set', { text: 'Take the TEA out', inSeconds: 600 }, { person: ana });
    await call('reminders.set', { text: 'buy tea bags', inSeconds: 900 }, { person: ana });
    await call('reminders.set', { text: 'call mum', inSeconds: 900 }, { person: ana });
    await call('reminders.set', { text: 'tea with Ana', inSeconds: 900 }, { person: bob });
    expect(await call('reminders.cancel', { text: 'tea' }, { person: bob, bot: 'coach' })).toEqual({ count: 0, cancelled: [], said: "I couldn't find a reminder about tea." });
    expect(await call('reminders.cancel', { text: 'Tea' }, { person: ana })).toEqual({
      count: 2,
      cancelled: ['Take the TEA out', 'buy tea bags'],
      said: "I've cancelled your reminders to Take the TEA out and buy tea bags.",
    });
    expect((await noticesOf(ana)).map((n) => n.text)).toEqual(['Reminder: call mum.']);
    expect((await noticesOf(bob)).map((n) => n.text)).toEqual(['Reminder: tea with Ana.']);
  });

  it('does not cancel or list a reminder a page has already said', async () => {
    const ana = somebody();
    const set = (await call('reminders.set', { text: 'stretch', inSeconds: 60 }, { person: ana })) as { id: string };
    expect(await db.asPerson(ana, (tx) => markDelivered(tx, set.id))).toMatchObject({ outcome: 'delivered' });
    expect(await call('reminders.list', {}, { person: ana })).toMatchObject({ reminders: [], total: 0 });
    expect(await call('reminders.cancel', { text: 'stretch' }, { person: ana })).toMatchObject({ count: 0, cancelled: [] });
  });

  it('narrates how many reminders are coming up after one is set or cancelled, and nothing after a list', async () => {
    const ana = somebody();
    const narrate = async (verb: string, input: unknown) => narrations(db, reminders, { verb, input, output: await call(verb, input, { person: ana }) }, { person: ana });
    expect(await narrate('reminders.set', { text: 'take the tea out', inSeconds: 600 })).toEqual(['You have 1 reminder coming up.']);
    expect(await narrate('reminders.set', { text: 'call mum', inSeconds: 900 })).toEqual(['You have 2 reminders coming up.']);
    expect(await narrate('reminders.list', {})).toEqual([]);
    expect(await narrate('reminders.cancel', { text: 'tea' })).toEqual(['You have 1 reminder coming up.']);
    expect(await narrate('reminders.cancel', { text: 'mum' })).toEqual(['You have no reminders coming up.']);
  });

  it.each([
    ['Remind me in ten minutes to take the tea out.', { text: 'take the tea out', inSeconds: 600 }],
    ['remind me in twenty five minutes to check the oven', { text: 'check the oven', inSeconds: 1500 }],
    ['remind me in forty-five seconds to flip it', { text: 'flip it', inSeconds: 45 }],
    ['remind me in 2 hours to call mum', { text: 'call mum', inSeconds: 7200 }],
    ['remind me in an hour to stretch', { text: 'stretch', inSeconds: 3600 }],
    ['remind me in half an hour to move the car', { text: 'move the car', inSeconds: 1800 }],
    ['remind me in sixty mins to rest', { text: 'rest', inSeconds: 3600 }],
    ['remind me at 7:30 to call mum', { text: 'call mum', at: '07:30' }],
    ['remind me at 7:30 pm to call mum', { text: 'call mum', at: '19:30' }],
    ['remind me at 7 p.m. to call mum', { text: 'call mum', at: '19:00' }],
    ['remind me at 12 am to lock up', { text: 'lock up', at: '00:00' }],
    ['remind me at 19:45 to lock up', { text: 'lock up', at: '19:45' }],
    ['remind me to take the bins out in 5 minutes', { text: 'take the bins out', inSeconds: 300 }],
    ['remind me to call the plumber at 9 am', { text: 'call the plumber', at: '09:00' }],
  ])('the stand-in hears %j as reminders.set %j', (line, input) => {
    expect(standInCall([reminders], line)).toEqual({ verb: 'reminders.set', input });
  });

  it.each([
    ['What reminders do I have?', 'reminders.list', {}],
    ['what are my reminders', 'reminders.list', {}],
    ['do i have any reminders', 'reminders.list', {}],
    ['cancel my reminder to take the tea out', 'reminders.cancel', { text: 'take the tea out' }],
    ['Cancel the reminder about the plumber.', 'reminders.cancel', { text: 'the plumber' }],
  ])('the stand-in hears %j as %s', (line, verb, input) => {
    expect(standInCall([reminders], line)).toEqual({ verb, input });
  });

  it.each([
    ['es', 'sacar el té', 'té', 'Recordatorio: sacar el té.', ['Tienes 1 recordatorio pendiente.', 'Tienes 2 recordatorios pendientes.', 'No tienes recordatorios pendientes.']],
    ['fr', 'sortir le thé', 'thé', 'Rappel : sortir le thé.', ['Vous avez 1 rappel à venir.', 'Vous avez 2 rappels à venir.', 'Vous n’avez aucun rappel à venir.']],
    ['de', 'den Tee herausnehmen', 'Tee', 'Erinnerung: den Tee herausnehmen.', ['Du hast 1 anstehende Erinnerung.', 'Du hast 2 anstehende Erinnerungen.', 'Du hast keine anstehenden Erinnerungen.']],
  ])('says a reminder and how many are coming up in the language it was asked in (%s), and lists and cancels it by its own words', async (language, text, word, notice, said) => {
    const ana = somebody();
    const narrate = async (verb: string, input: unknown) => narrations(db, reminders, { verb, input, output: await call(verb, input, { person: ana, language }) }, { person: ana, language });
    const coming = [...(await narrate('reminders.set', { text, inSeconds: 600 }))];
    expect((await noticesOf(ana)).map((n) => n.text)).toEqual([notice]);
    coming.push(...(await narrate('reminders.set', { text: 'call mum', inSeconds: 900 })));
    // Read in any language: an English list of a reminder asked for in another says it as it was asked.
    expect(await call('reminders.list', {}, { person: ana })).toMatchObject({ reminders: [{ text }, { text: 'call mum' }] });
    await call('reminders.cancel', { text: 'mum' }, { person: ana, language });
    coming.push(...(await narrate('reminders.cancel', { text: word })));
    expect(coming).toEqual(said);
  });

  it('hears a delay or a time in what a person says, and nothing in an impossible time', () => {
    expect(whenSaid('in one second')).toEqual({ inSeconds: 1 });
    expect(whenSaid('in three hrs')).toEqual({ inSeconds: 10_800 });
    expect(whenSaid('at 13 pm')).toBeUndefined();
    expect(whenSaid('at 24:00')).toBeUndefined();
    expect(whenSaid('tomorrow')).toBeUndefined();
  });

  it('says each result as one sentence, which the stand-in says as it is', async () => {
    const options = { person: somebody() };
    const said = async (verb: string, input: unknown) => {
      const output = await call(verb, input, options);
      expect(standInSays(reminders, verb, output, input)).toBe((output as { said: string }).said);
      return (output as { said: string }).said;
    };
    expect(await said('reminders.list', {})).toBe('You have no reminders coming up.');
    expect(await said('reminders.set', { text: 'take the tea out', inSeconds: 600 })).toBe("I'll remind you in 10 minutes to take the tea out.");
    expect(await said('reminders.set', { text: 'call mum', at: '19:30' })).toBe("I'll remind you at 7:30 pm to call mum.");
    expect(await said('reminders.set', { text: 'about the milk', at: '2026-12-25T09:00' })).toBe("I'll remind you at 9 am on Friday, 25 December about the milk.");
    expect(await said('reminders.list', {})).toBe(
      'You have 3 reminders coming up: to take the tea out in 10 minutes, to call mum at 7:30 pm, and about the milk at 9 am on Friday, 25 December.',
    );
    expect(await said('reminders.cancel', { text: 'tea' })).toBe("I've cancelled your reminder to take the tea out.");
    expect(await said('reminders.cancel', { text: 'tea' })).toBe("I couldn't find a reminder about tea.");
  });

  it.each([
    ['es', 'sacar el té', ['Te lo recordaré dentro de 10 minutos: sacar el té.', 'Te lo recordaré mañana a las 9:00: llamar a mamá.', 'Te lo recordaré el viernes, 25 de diciembre a las 9:00: regar.'], 'Tienes 3 recordatorios pendientes: sacar el té (dentro de 10 minutos), llamar a mamá (mañana a las 9:00) y regar (el viernes, 25 de diciembre a las 9:00).', 'He cancelado tu recordatorio: sacar el té.', 'Esa hora ya ha pasado; di una que aún esté por llegar.'],
    ['fr', 'sortir le thé', ['Je vous le rappellerai dans 10 minutes : sortir le thé.', 'Je vous le rappellerai demain à 9:00 : llamar a mamá.', 'Je vous le rappellerai le vendredi 25 décembre à 9:00 : regar.'], 'Vous avez 3 rappels à venir : sortir le thé (dans 10 minutes), llamar a mamá (demain à 9:00) et regar (le vendredi 25 décembre à 9:00).', 'J’ai annulé votre rappel : sortir le thé.', 'Cette heure est déjà passée ; donnez une heure encore à venir.'],
    ['de', 'den Tee herausnehmen', ['Ich erinnere dich in 10 Minuten: den Tee herausnehmen.', 'Ich erinnere dich morgen um 9:00 Uhr: llamar a mamá.', 'Ich erinnere dich am Freitag, 25. Dezember um 9:00 Uhr: regar.'], 'Du hast 3 anstehende Erinnerungen: den Tee herausnehmen (in 10 Minuten), llamar a mamá (morgen um 9:00 Uhr) und regar (am Freitag, 25. Dezember um 9:00 Uhr).', 'Ich habe deine Erinnerung abgesagt: den Tee herausnehmen.', 'Diese Zeit ist schon vorbei; nenne eine, die noch kommt.'],
  ])('says each result, and when, in the person’s language (%s)', async (language, text, set, listed, cancelled, refusal) => {
    const options = { person: somebody(), language };
    const said = async (verb: string, input: unknown) => ((await call(verb, input, options)) as { said: string }).said;
    expect([
      await said('reminders.set', { text, inSeconds: 600 }),
      await said('reminders.set', { text: 'llamar a mamá', at: '09:00' }),
      await said('reminders.set', { text: 'regar', at: '2026-12-25T09:00' }),
    ]).toEqual(set);
    expect(await said('reminders.list', {})).toBe(listed);
    expect(await said('reminders.cancel', { text })).toBe(cancelled);
    await expect(call('reminders.set', { text, at: '2026-11-30T09:00' }, options)).rejects.toThrow(new VerbInputError(refusal));
  });
});
