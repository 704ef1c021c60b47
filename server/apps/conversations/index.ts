/**
 * Conversations: what was said about something in the person's earlier conversations with this
 * bot, found by its words, newest first.
 */
import { z } from 'zod';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import { appWords } from '../appWords';
import { daysBetween, isoLocal, localTime, spokenDate } from '../localTime';
import { opening } from '../spoken';
import { findSaid } from './said';

/** Most lines one search answers. */
export const MATCHES_MAX = 5;
/** Longest piece of a line answered, in characters, ellipses included. */
export const SNIPPET_MAX_CHARS = 200;
/** Most matches said aloud in the answer. */
const SAID_MAX = 2;
/** How much of a line to keep before its first matching word, in characters. */
const LEAD_CHARS = 60;
/** What the app says aloud, in the person's language (`words/<lang>.md`). */
const WORDS = appWords(new URL('.', import.meta.url));

/**
 * The part of `text` around the first word of `about` in it, at most `SNIPPET_MAX_CHARS`, cut at
 * spaces and marked with an ellipsis where cut. Words are compared by their first five letters, so
 * "birthdays" finds "birthday" as the search itself does.
 */
export function snippet(text: string, about: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= SNIPPET_MAX_CHARS) return line;
  const lower = line.toLowerCase();
  const stems = about
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3)
    .map((word) => word.slice(0, 5));
  const found = stems.map((stem) => lower.indexOf(stem)).filter((at) => at >= 0);
  const first = found.length === 0 ? 0 : Math.min(...found);
  let start = Math.max(0, first - LEAD_CHARS);
  if (start > 0) start = line.indexOf(' ', start) + 1 || start;
  const room = SNIPPET_MAX_CHARS - (start > 0 ? 1 : 0) - 1;
  let piece = line.slice(start, start + room);
  if (start + room < line.length) {
    const space = piece.lastIndexOf(' ');
    if (space > room / 2) piece = piece.slice(0, space);
    piece = `${piece.replace(/[\s,;:.–—-]+$/, '')}…`;
  }
  return start > 0 ? `…${piece}` : piece;
}

/** When a line was said, as said aloud in `language`: "earlier today", "yesterday", "on Tuesday, 3 November". */
function spokenDay(saidAtMs: number, nowMs: number, timeZone: string, language: string | undefined): string {
  const said = localTime(saidAtMs, timeZone);
  const days = daysBetween(said, localTime(nowMs, timeZone));
  if (days <= 0) return WORDS.say(language, 'earlier-today');
  return days === 1 ? WORDS.say(language, 'yesterday') : WORDS.say(language, 'on-day', { date: spokenDate(said, language) });
}

const find = defineVerb({
  name: 'conversations.find',
  description: `Finds what was said about something in the person's earlier conversations with this bot: at most ${MATCHES_MAX} lines, newest first.`,
  example: 'what did we say about my sister',
  input: z.object({
    about: z.string().min(2).max(200).describe('What to look for: a few words, like "my sister\'s birthday".'),
  }),
  output: z.object({
    matches: z
      .array(
        z.object({
          when: z.string().describe("When it was said, as an ISO 8601 date-time in the person's time zone."),
          whenSpoken: z.string().describe('When it was said, as said aloud in the person\'s language: "yesterday", "on Tuesday, 3 November".'),
          who: z.enum(['person', 'assistant']).describe('Who said it: the person, or the bot.'),
          text: z.string().describe(`What was said, or the part of it about the search, at most ${SNIPPET_MAX_CHARS} characters.`),
        }),
      )
      .describe('Newest first.'),
    said: z.string().describe('What to tell the person now.'),
  }),
  risk: 'read',
  deadlineMs: 2000,
  async run(input, ctx) {
    const about = input.about.replace(/\s+/g, ' ').trim();
    if (about.length < 2) throw new VerbInputError(WORDS.say(ctx.language, 'say-what'));
    // Through the door, the question itself was just saved as a line of the live conversation.
    const query = { bot: ctx.bot, about, skipLatestConversation: ctx.via === 'model', limit: MATCHES_MAX };
    let lines = await findSaid(ctx.tx, { ...query, match: 'all' });
    ctx.signal.throwIfAborted();
    if (lines.length === 0) lines = await findSaid(ctx.tx, { ...query, match: 'any' });
    const matches = lines.map((line) => ({
      when: isoLocal(line.saidAtMs, ctx.timeZone),
      whenSpoken: spokenDay(line.saidAtMs, ctx.nowMs, ctx.timeZone, ctx.language),
      who: line.who,
      text: snippet(line.text, about),
    }));
    const sentences = matches
      .slice(0, SAID_MAX)
      .map((m) => opening(WORDS.say(ctx.language, m.who === 'person' ? 'you-said' : 'i-said', { when: m.whenSpoken, text: m.text.replace(/[.!?…]*$/, '') })));
    if (matches.length > SAID_MAX) sentences.unshift(WORDS.count(ctx.language, 'found', matches.length));
    return { matches, said: matches.length === 0 ? WORDS.say(ctx.language, 'none-found', { about: input.about }) : sentences.join(' ') };
  },
  standIn: {
    phrasings: [
      {
        pattern: /^what (?:did|have) (?:we|i|you) (?:say|said|talk about|talked about|tell you|told you) (?:about|regarding) (.+)$/,
        input: (m) => ({ about: m[1] ?? '' }),
      },
    ],
    say: ({ said }) => said,
  },
});

export default defineApp({
  name: 'conversations',
  description: "What was said in the person's earlier conversations with this bot.",
  verbs: [find],
});
