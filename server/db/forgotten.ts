/**
 * Forgotten is forgotten everywhere the bot can look (migration 024). What a person had a bot
 * forget is kept as phrases — a memory's words, as the bot says them back, and the words
 * `memory.forget` was asked about — each as its word count and a digest of its words, never the
 * words. A line mentions a phrase when some run of its words, matched as `memory.forget` matches
 * (whole words, any case), digests the same. Such lines are marked in `forgotten_lines` when the
 * phrase is forgotten and when a line is saved after it; every reader that hands lines to a bot
 * reads through `BOT_MAY_READ`, and the person's own transcript (`listLines`) does not. Run these in
 * the person's transaction (`asPerson`).
 */
import { createHash } from 'node:crypto';
import { wordsOf } from '../../common/wordsOf';
import type { Queryable } from './queryable';

/**
 * A text's words as `memory.forget` matches them: `wordsOf`, a possessive 's dropped — so "My
 * sister's birthday." is `my sister birthday`. Kept phrases are digests of these words, so this
 * never changes without a migration of `forgotten_phrases`.
 */
export function forgetWords(text: string): string[] {
  return wordsOf(text).map((word) => word.replace(/'s$/, ''));
}

/** Whether `words` appear in `text` whole and one after another ("the" is not in "other"). */
export function mentions(text: string, words: readonly string[]): boolean {
  const said = forgetWords(text);
  for (let start = 0; start + words.length <= said.length; start++) {
    if (words.every((word, i) => said[start + i] === word)) return true;
  }
  return false;
}

/**
 * How a bot says a person's own words back, per language it speaks: the person's "I", "me" and "my"
 * as the bot's "you" and "your" — familiar and, where the language has one, polite ("tu hermana",
 * "su hermana"; "ta sœur", "votre sœur"; "deine Schwester", "Ihre Schwester"). Only these small
 * words turn; a verb said back in another person is not followed.
 */
const SAID_BACK: readonly Readonly<Record<string, string>>[] = [
  { i: 'you', "i'm": "you're", me: 'you', my: 'your', mine: 'yours', myself: 'yourself' },
  { yo: 'tú', me: 'te', mi: 'tu', mis: 'tus', mío: 'tuyo', mía: 'tuya', míos: 'tuyos', mías: 'tuyas', conmigo: 'contigo' },
  { yo: 'usted', mi: 'su', mis: 'sus', mío: 'suyo', mía: 'suya', míos: 'suyos', mías: 'suyas' },
  { je: 'tu', me: 'te', moi: 'toi', mon: 'ton', ma: 'ta', mes: 'tes' },
  { je: 'vous', me: 'vous', moi: 'vous', mon: 'votre', ma: 'votre', mes: 'vos' },
  { ich: 'du', mich: 'dich', mir: 'dir', mein: 'dein', meine: 'deine', meinen: 'deinen', meinem: 'deinem', meiner: 'deiner', meines: 'deines' },
  { ich: 'sie', mich: 'sie', mir: 'ihnen', mein: 'ihr', meine: 'ihre', meinen: 'ihren', meinem: 'ihrem', meiner: 'ihrer', meines: 'ihres' },
];

function turned(text: string, back: Readonly<Record<string, string>>): string {
  return text.replace(/[\p{L}']+/gu, (word) => back[word.normalize('NFC').toLowerCase().replace(/\u2019/g, "'")] ?? word);
}

/** The person's words as the bot says them back in English: "my sister" is "your sister". */
export function yourWords(text: string): string {
  return turned(text, SAID_BACK[0] ?? {});
}

/** Every way a bot may say `text` back to the person who said it, in each language it speaks, `text` first. */
function saidBack(text: string): string[] {
  return [text, ...SAID_BACK.map((back) => turned(text, back))];
}

/**
 * The condition a line `l` of a thread `t` must meet to be handed to a bot: it mentions nothing the
 * person had the bot forget (`forgotten_lines`), and is not word for word a forgotten memory (the
 * digests of migration 002, kept before phrases were). Every statement that reads lines for a bot
 * — `conversations.find`, past questions — puts this in its `where`.
 */
export const BOT_MAY_READ = `not exists (select 1 from forgotten_lines fl where fl.person = l.person and fl.line = l.id)
  and sha256(convert_to(l.text, 'UTF8')) <> all (array(select f.digest from forgotten f where f.person = l.person and f.bot = t.bot))`;

interface Phrase {
  words: number;
  /** Hex SHA-256 of the words joined by one space. */
  digest: string;
}

function phraseOf(words: readonly string[]): Phrase {
  return { words: words.length, digest: createHash('sha256').update(words.join(' ')).digest('hex') };
}

/** The phrases a text would be forgotten as: its words, and (when they differ) its words said back (`saidBack`). */
function phrasesOf(texts: readonly string[]): { words: string[]; phrase: Phrase }[] {
  const seen = new Set<string>();
  const out: { words: string[]; phrase: Phrase }[] = [];
  for (const text of texts.flatMap(saidBack)) {
    const words = forgetWords(text);
    if (words.length === 0) continue;
    const phrase = phraseOf(words);
    if (seen.has(phrase.digest)) continue;
    seen.add(phrase.digest);
    out.push({ words, phrase });
  }
  return out;
}

/** Whether some run of `text`'s words is one of `phrases`. */
function mentionsAny(text: string, phrases: readonly Phrase[]): boolean {
  if (phrases.length === 0) return false;
  const said = forgetWords(text);
  const digests = new Set(phrases.map((p) => p.digest));
  for (const n of new Set(phrases.map((p) => p.words))) {
    for (let start = 0; start + n <= said.length; start++) if (digests.has(phraseOf(said.slice(start, start + n)).digest)) return true;
  }
  return false;
}

/**
 * Keeps `texts` forgotten for the person's `bot` (and the way the bot says them back), and marks
 * every line of theirs with that bot that mentions one, so no bot reads it again.
 */
export async function forgetPhrases(tx: Queryable, forgotten: { person: string; bot: string; texts: readonly string[] }): Promise<void> {
  for (const { words, phrase } of phrasesOf(forgotten.texts)) {
    await tx.query("insert into forgotten_phrases (person, bot, words, digest) values ($1, $2, $3, decode($4, 'hex')) on conflict do nothing", [forgotten.person, forgotten.bot, phrase.words, phrase.digest]);
    // ASCII letters and digits only (no % or _), so each piece is a LIKE pattern as it stands; the words decide.
    const pieces = words.flatMap((word) => word.split("'")).filter((piece) => /^[a-z0-9]+$/.test(piece)).map((piece) => `%${piece}%`);
    const { rows } = await tx.query<{ id: string; text: string }>(
      `select l.id, l.text from lines l join threads t on t.id = l.thread_id
        where l.person = $1 and t.bot = $2 and l.text ilike all ($3::text[])
          and not exists (select 1 from forgotten_lines fl where fl.person = l.person and fl.line = l.id)`,
      [forgotten.person, forgotten.bot, pieces],
    );
    const mentioning = rows.filter((row) => mentions(row.text, words)).map((row) => row.id);
    if (mentioning.length > 0) {
      await tx.query('insert into forgotten_lines (person, line) select $1, unnest($2::uuid[]) on conflict do nothing', [forgotten.person, mentioning]);
    }
  }
}

/** Marks a line just saved when it mentions something the person had the thread's bot forget. */
export async function markIfForgotten(tx: Queryable, line: { id: string; person: string; threadId: string; text: string }): Promise<void> {
  const { rows } = await tx.query<{ words: number; digest: string }>(
    `select f.words, encode(f.digest, 'hex') as digest from forgotten_phrases f join threads t on t.bot = f.bot
      where t.id = $1 and f.person = $2`,
    [line.threadId, line.person],
  );
  if (mentionsAny(line.text, rows)) {
    await tx.query('insert into forgotten_lines (person, line) values ($1, $2) on conflict do nothing', [line.person, line.id]);
  }
}

/**
 * A test for text the bot is about to be handed outside the lines table (a checkpoint's summary,
 * the lines it is made from): true for text that mentions something the person had `bot` forget.
 */
export async function forgottenTest(tx: Queryable, filter: { person: string; bot: string }): Promise<(text: string) => boolean> {
  const { rows } = await tx.query<{ words: number; digest: string }>("select words, encode(digest, 'hex') as digest from forgotten_phrases where person = $1 and bot = $2", [filter.person, filter.bot]);
  return (text) => mentionsAny(text, rows);
}
