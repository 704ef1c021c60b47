/**
 * BERT's uncased WordPiece tokenizer, as all-MiniLM-L6-v2 was trained with (`BertTokenizer`,
 * do_lower_case, strip_accents, tokenize_chinese_chars): text → the ids of `[CLS] pieces… [SEP]`.
 *
 * 1. control characters dropped, whitespace normalised; lower-cased, accents stripped (NFD);
 * 2. split on whitespace, and every punctuation mark and CJK character made a token of its own;
 * 3. each token split greedily into the longest pieces in the vocabulary, continuations prefixed
 *    `##`; a token with no such split, or longer than 100 characters, is `[UNK]`;
 * 4. truncated to `maxTokens` ids including `[CLS]` and `[SEP]`.
 */

export interface WordPiece {
  /** The ids of `[CLS] pieces… [SEP]`, at most `maxTokens` long. */
  encode(text: string): number[];
}

/** The vocabulary lacks one of BERT's special tokens. */
export class VocabularyError extends Error {
  override readonly name = 'VocabularyError';
}

const MAX_CHARS_PER_WORD = 100;

function isPunctuation(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  // BERT counts every non-alphanumeric ASCII character as punctuation, as well as Unicode's P*.
  if ((code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)) return true;
  return /\p{P}/u.test(char);
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x2a6df) ||
    (code >= 0x2a700 && code <= 0x2b73f) ||
    (code >= 0x2b740 && code <= 0x2b81f) ||
    (code >= 0x2b820 && code <= 0x2ceaf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x2f800 && code <= 0x2fa1f)
  );
}

/** Step 1 and 2: the basic tokens of `text`. */
export function basicTokens(text: string): string[] {
  const tokens: string[] = [];
  let word = '';
  const flush = () => {
    if (word !== '') tokens.push(word);
    word = '';
  };
  const cleaned = text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
  for (const char of cleaned) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0 || code === 0xfffd || (/\p{C}/u.test(char) && !/\s/u.test(char))) continue;
    if (/\s/u.test(char)) flush();
    else if (isPunctuation(char) || isCjk(code)) {
      flush();
      tokens.push(char);
    } else word += char;
  }
  flush();
  return tokens;
}

/** A tokenizer over `vocab.txt`'s text: one piece a line, its line number its id. */
export function wordPiece(vocabText: string, maxTokens: number): WordPiece {
  const vocab = new Map<string, number>();
  vocabText.split(/\r?\n/).forEach((piece, id) => {
    if (piece !== '' && !vocab.has(piece)) vocab.set(piece, id);
  });
  const special = (piece: string) => {
    const id = vocab.get(piece);
    if (id === undefined) throw new VocabularyError(`The vocabulary has no ${piece}; it is not a BERT WordPiece vocabulary.`);
    return id;
  };
  const cls = special('[CLS]');
  const sep = special('[SEP]');
  const unk = special('[UNK]');

  function pieces(token: string): number[] {
    const chars = Array.from(token);
    if (chars.length > MAX_CHARS_PER_WORD) return [unk];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? '##' : '') + chars.slice(start, end).join('');
        found = vocab.get(piece);
        if (found !== undefined) break;
        end -= 1;
      }
      if (found === undefined) return [unk];
      ids.push(found);
      start = end;
    }
    return ids;
  }

  return {
    encode(text) {
      const ids = basicTokens(text).flatMap(pieces).slice(0, Math.max(0, maxTokens - 2));
      return [cls, ...ids, sep];
    },
  };
}
