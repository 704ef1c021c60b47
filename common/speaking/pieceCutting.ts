/**
 * Cutting the complete sentences kept after the opening into the later pieces of an answer.
 */
import { isWordLike, phrasesOf } from './sentences';

/**
 * The next piece from the front of `kept`, no longer than `limit` unless its first unit alone is:
 * whole sentences while they fit; then, for a sentence longer than any piece at this limit, as
 * many of its phrases as fit (at least one in an empty piece), leaving the rest of it kept. A
 * sentence that fits a piece of its own waits for the next one.
 *
 * The limit is `pieceChars`, or the budget given for the piece when that is smaller (what this
 * device can make before the audio queued ahead of it has played out, see `pace.ts`), so a small
 * budget gives more, smaller pieces, never a cut mid-phrase (phrases have at least
 * `MIN_PHRASE_WORDS`); a phrase longer than its budget is spoken whole. Only past `pieceChars` does
 * a phrase break, at the last space before it (at the limit itself in a run with no space).
 */
export function cut(kept: readonly string[], limit: number, pieceChars: number): { piece: string | null; rest: string[] } {
  const rest = [...kept];
  let piece = '';
  const room = () => (piece === '' ? limit : limit - piece.length - 1);
  const take = (text: string) => {
    piece = piece === '' ? text : `${piece} ${text}`;
  };
  for (let sentence = rest[0]; sentence !== undefined; sentence = rest[0]) {
    if (sentence.length <= room()) {
      take(sentence);
      rest.shift();
      continue;
    }
    if (piece !== '' && sentence.length <= limit) break;
    const units = phrasesOf(sentence.split(' '))
      .flatMap((phrase) => breakToFit(phrase, pieceChars))
      .filter(isWordLike);
    let taken = 0;
    for (const unit of units) {
      if (piece !== '' && unit.length > room()) break;
      take(unit);
      taken += 1;
    }
    const left = units.slice(taken).join(' ');
    if (left === '') rest.shift();
    else rest[0] = left;
    break;
  }
  return { piece: piece === '' ? null : piece, rest };
}

/**
 * Text (the opening, on its own) as units no longer than `limit` characters: itself, or its
 * phrases when it is longer, each broken further only if it alone is still too long.
 */
export function unitsOf(words: readonly string[], limit: number): string[] {
  const text = words.join(' ');
  if (text.length <= limit) return isWordLike(text) ? [text] : [];
  return phrasesOf(words)
    .flatMap((phrase) => breakToFit(phrase, limit))
    .filter(isWordLike);
}

/** Breaks text at the last space before `limit`, or at `limit` with no space, never inside a code point. */
function breakToFit(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(' ', limit);
    const cut = space > 0 ? space : limit - (isHighSurrogate(rest.charCodeAt(limit - 1)) ? 1 : 0);
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  return [...parts, rest];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
