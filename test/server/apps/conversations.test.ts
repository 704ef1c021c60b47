import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import conversations, { MATCHES_MAX, SNIPPET_MAX_CHARS, snippet } from '../../../server/apps/conversations/index';
import type { Database } from '../../../server/db/database';
import { addLine } from '../../../server/db/lines';
import type { Speaker } from '../../../server/db/lines';
import { forgetMemory, rememberLine } from '../../../server/db/memories';
import { createThread } from '../../../server/db/threads';
import { createRegistry } from '../../../server/verbs/registry';
import { TUESDAY_MS, callVerb, standInCall, standInSays, verbOf } from '../../helpers/verbContext';
import type { CallOptions } from '../../helpers/verbContext';
import { DB_TEST_MS, OPENING_MS, axis, openMemoryDatabase, somebody } from '../db/fixtures';

interface Found {
  matches: { when: string; whenSpoken: string; who: Speaker; text: string }[];
  said: string;
}

describe('conversations', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  let clientIds = 0;
  /** A conversation of `lines` ([who, text]) with `bot`, said at `atMs`. */
  async function conversation(person: string, lines: [Speaker, string][], options: { bot?: string; atMs?: number } = {}): Promise<string> {
    const threadId = await db.asPerson(person, async (tx) => {
      const thread = await createThread(tx, { person, bot: options.bot ?? 'demo' });
      for (const [who, text] of lines) await addLine(tx, { threadId: thread.id, person, who, text, clientId: `c${(clientIds += 1)}` });
      return thread.id;
    });
    // Nobody edits a line; the server alone dates these ones for the test.
    const at = new Date(options.atMs ?? TUESDAY_MS - 3_600_000);
    await db.asServer((tx) => tx.query('update lines set created_at = $2 where thread_id = $1', [threadId, at]));
    return threadId;
  }
  const find = async (person: string, about: string, options: Partial<CallOptions> = {}) =>
    (await callVerb(db, conversations, 'conversations.find', { about }, { person, via: 'mcp', ...options })) as Found;

  it('passes the registry’s checks', () => {
    expect(() => createRegistry([conversations])).not.toThrow();
    expect(verbOf(conversations, 'conversations.find')).toMatchObject({ risk: 'read', deadlineMs: 2000 });
  });

  it('finds what was said about something in the person’s conversations with this bot, newest first, by either side', async () => {
    const ana = somebody();
    await conversation(ana, [['person', 'My sister Ana has her birthday in May.'], ['assistant', 'Lovely — what will you give her?']], { atMs: Date.UTC(2026, 10, 3, 10) });
    await conversation(ana, [['person', 'I bought a scarf.'], ['assistant', 'A scarf is a fine birthday present for a sister.']], { atMs: Date.UTC(2026, 10, 30, 9) });
    await conversation(ana, [['person', 'Nothing to do with it.']]);
    expect(await find(ana, "my sister's birthday")).toEqual({
      matches: [
        { when: '2026-11-30T09:00:00+00:00', whenSpoken: 'yesterday', who: 'assistant', text: 'A scarf is a fine birthday present for a sister.' },
        { when: '2026-11-03T10:00:00+00:00', whenSpoken: 'on Tuesday, 3 November', who: 'person', text: 'My sister Ana has her birthday in May.' },
      ],
      said: 'Yesterday I said: A scarf is a fine birthday present for a sister. On Tuesday, 3 November you said: My sister Ana has her birthday in May.',
    });
  });

  it('finds a word in another form ("birthdays"), and falls back to any of the words when no line has all of them', async () => {
    const ana = somebody();
    await conversation(ana, [['person', 'Birthdays make me nervous.']]);
    await conversation(ana, [['person', 'The garden party is on Sunday.']]);
    expect((await find(ana, 'birthday')).matches.map((m) => m.text)).toEqual(['Birthdays make me nervous.']);
    expect((await find(ana, 'birthday party')).matches.map((m) => m.text)).toEqual(['The garden party is on Sunday.', 'Birthdays make me nervous.']);
    expect((await find(ana, 'volcanoes')).matches).toEqual([]);
  });

  it("finds nothing in another bot's conversations or another person's", async () => {
    const ana = somebody();
    await conversation(ana, [['person', 'My sister is visiting.']], { bot: 'coach' });
    await conversation(somebody(), [['person', 'My sister is visiting.']]);
    expect((await find(ana, 'sister')).matches).toEqual([]);
    expect((await find(ana, 'sister', { bot: 'coach' })).matches).toHaveLength(1);
  });

  it('through the door, leaves out the live conversation in which the question was just asked', async () => {
    const ana = somebody();
    await conversation(ana, [['person', 'My sister is visiting.']], { atMs: TUESDAY_MS - 86_400_000 });
    await conversation(ana, [['person', 'What did we say about my sister?']], { atMs: TUESDAY_MS });
    expect((await find(ana, 'my sister', { via: 'model' })).matches.map((m) => m.text)).toEqual(['My sister is visiting.']);
    expect((await find(ana, 'my sister', { via: 'mcp' })).matches.map((m) => m.text)).toEqual(['What did we say about my sister?', 'My sister is visiting.']);
  });

  it('never finds words the person told this bot to forget', async () => {
    const ana = somebody();
    await conversation(ana, [['person', 'My sister owes me money.'], ['person', 'My sister is visiting.']]);
    const memory = await db.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'My sister owes me money.', embedder: 'hash-v1', embedding: axis(0) }));
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, memory?.id ?? ''))).toBe(true);
    expect((await find(ana, 'sister')).matches.map((m) => m.text)).toEqual(['My sister is visiting.']);
  });

  it(`answers at most ${MATCHES_MAX} lines, each at most ${SNIPPET_MAX_CHARS} characters around the words`, async () => {
    const ana = somebody();
    const long = `${'We walked a long way along the river that morning, '.repeat(6)}and then my sister told me about her new job in Lisbon, ${'which was good news for everyone in the family, '.repeat(4)}`;
    for (let i = 0; i < 7; i++) await conversation(ana, [['person', `${long} (${i})`]]);
    const { matches } = await find(ana, 'sister job');
    expect(matches).toHaveLength(MATCHES_MAX);
    for (const match of matches) {
      expect(match.text.length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
      expect(match.text).toContain('my sister told me about her new job');
      expect(match.text.startsWith('…')).toBe(true);
      expect(match.text.endsWith('…')).toBe(true);
    }
  });

  it('keeps a short line whole, and a long one’s opening when none of the words is in it', () => {
    expect(snippet('  My sister\nis visiting. ', 'sister')).toBe('My sister is visiting.');
    const cut = snippet('word '.repeat(100), 'sister');
    expect(cut.length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
    expect(cut).toMatch(/^word word .*word…$/);
  });

  it.each([
    ['What did we say about my sister?', { about: 'my sister' }],
    ['what did i say about ana', { about: 'ana' }],
    ['what did I tell you about the garden', { about: 'the garden' }],
    ['what have we talked about regarding the move', { about: 'the move' }],
  ])('the stand-in hears %j as conversations.find %j', (line, input) => {
    expect(standInCall([conversations], line)).toEqual({ verb: 'conversations.find', input });
  });

  it('says the newest of what it found, which the stand-in says as it is', async () => {
    const ana = somebody();
    const said = async (about: string, options: Partial<CallOptions> = {}) => {
      const found = await find(ana, about, options);
      expect(standInSays(conversations, 'conversations.find', found, { about })).toBe(found.said);
      return found.said;
    };
    expect(await said('my sister')).toBe("I couldn't find anything we said about my sister.");
    await conversation(ana, [['person', 'My sister called.']], { atMs: Date.UTC(2026, 10, 2, 10) });
    await conversation(ana, [['person', 'My sister is visiting…']], { atMs: Date.UTC(2026, 10, 3, 10) });
    expect(await said('sister')).toBe('On Tuesday, 3 November you said: My sister is visiting. On Monday, 2 November you said: My sister called.');
    await conversation(ana, [['assistant', 'Your sister sounds kind!']]);
    expect(await said('sister')).toBe('I found 3 things. Earlier today I said: Your sister sounds kind. On Tuesday, 3 November you said: My sister is visiting.');
    expect(await said('sister', { language: 'es' })).toBe('He encontrado 3 cosas. Hoy dije: Your sister sounds kind. El martes, 3 de noviembre dijiste: My sister is visiting.');
    expect(await said('sister', { language: 'fr' })).toBe('J’ai trouvé 3 passages. Aujourd’hui, j’ai dit : Your sister sounds kind. Le mardi 3 novembre, vous avez dit : My sister is visiting.');
    expect(await said('sister', { language: 'de' })).toBe('Ich habe 3 Stellen gefunden. Heute habe ich gesagt: Your sister sounds kind. Am Dienstag, 3. November hast du gesagt: My sister is visiting.');
    expect(await said('uncle', { language: 'de' })).toBe('Ich habe nichts gefunden, was wir über uncle gesagt haben.');
  });
});
