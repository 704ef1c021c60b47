/**
 * A final transcript that matches what the assistant just said is the assistant, heard through the
 * speakers, whatever any level claims; it is dropped rather than answered.
 *
 * The recogniser hears the echo imperfectly: it catches a fragment (a tail, or a middle, as it
 * starts and stops around the assistant's audio), changes case and punctuation, writes numbers
 * either way and slips a word here and there ("their" for "there", a word dropped). So the match is
 * at word level and fuzzy: the transcript, normalised, must sit inside one of the last few
 * utterances with at most a few words substituted, dropped or inserted. Short transcripts are held
 * to more: "stop" is a person's word even when the assistant just sang "don't stop believing".
 */
import { resolveOptions } from '../../../common/options';
import type { Limits } from '../../../common/options';

/** How a transcript is matched against what the assistant said. */
export interface SelfEchoOptions {
  /**
   * How many of the assistant's latest utterances are compared, counting from the end of the list
   * given. Echo arrives within seconds; three utterances cover an answer in progress and the two
   * before it without reaching back to things a person may fairly repeat. Default 3.
   */
  remember: number;
  /**
   * How many recogniser slips (words substituted, dropped or inserted) a transcript may carry and
   * still be echo, as a share of its words, rounded down: a quarter allows one slip in four words,
   * two in eight. Default 0.25.
   */
  slipShare: number;
  /**
   * Transcripts shorter than this many words are echo only when they are a whole utterance, word
   * for word ("Okay." answered by a transcript "okay"); a fragment that short is as likely to be a
   * person's "yes", "wait" or "stop". Default 3.
   */
  minWords: number;
}

/** How many of the assistant's latest utterances are compared by default. */
export const rememberedUtterances = 3;

/** The defaults, each explained on its field in `SelfEchoOptions`. */
export const SELF_ECHO: Readonly<SelfEchoOptions> = Object.freeze({
  remember: rememberedUtterances,
  slipShare: 0.25,
  minWords: 3,
});

const LIMITS: Limits<SelfEchoOptions> = {
  remember: { min: 1, max: 50, whole: true },
  slipShare: { min: 0, max: 0.5 },
  minWords: { min: 1, max: 20, whole: true },
};

/** Merges partial options over `SELF_ECHO` and checks them; throws `OptionError` naming the field (`selfEcho.<field>`), the value and the range. */
export function resolveSelfEcho(partial: Partial<SelfEchoOptions> = {}): SelfEchoOptions {
  return resolveOptions('selfEcho', SELF_ECHO, partial, LIMITS);
}

/** Number words the recogniser may write as digits or the other way round, 0–20 and the tens. */
const NUMBERS: Readonly<Record<string, string>> = {
  zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
  ten: '10', eleven: '11', twelve: '12', thirteen: '13', fourteen: '14', fifteen: '15', sixteen: '16',
  seventeen: '17', eighteen: '18', nineteen: '19', twenty: '20', thirty: '30', forty: '40', fifty: '50',
  sixty: '60', seventy: '70', eighty: '80', ninety: '90',
};

/** English homophones a recogniser swaps for one another, each mapped to one spelling. */
const SOUNDS_LIKE: Readonly<Record<string, string>> = {
  their: 'there', theyre: 'there', youre: 'your', whos: 'whose', hear: 'here', write: 'right',
  whether: 'weather', buy: 'by', bye: 'by', knew: 'new', okay: 'ok',
};

/**
 * The words of `text` as the echo match compares them: lower case, diacritics folded ("café" is
 * "cafe"), apostrophes dropped ("don't" is "dont"), any other punctuation a word break, number
 * words 0–99 as digits ("twenty-one" is "21"), and a few homophones spelt one way.
 */
export function normaliseForEcho(text: string): string[] {
  const plain = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’ʼ`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  if (plain === '') return [];
  const words = plain.split(' ').map((w) => NUMBERS[w] ?? SOUNDS_LIKE[w] ?? w);
  const joined: string[] = [];
  for (const word of words) {
    const previous = joined[joined.length - 1];
    if (previous !== undefined && /^[2-9]0$/.test(previous) && /^[1-9]$/.test(word)) {
      joined[joined.length - 1] = `${previous.slice(0, 1)}${word}`;
    } else {
      joined.push(word);
    }
  }
  return joined;
}

/**
 * The fewest words substituted, dropped or inserted to turn `needle` into some contiguous run of
 * `haystack` (approximate substring matching at word level: the run may start and end anywhere).
 */
function slipsWithin(needle: readonly string[], haystack: readonly string[]): number {
  let above = new Array<number>(haystack.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i++) {
    const row = new Array<number>(haystack.length + 1);
    row[0] = i;
    for (let j = 1; j <= haystack.length; j++) {
      const same = needle[i - 1] === haystack[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j - 1] ?? 0) + same, (above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1);
    }
    above = row;
  }
  return Math.min(...above);
}

/**
 * Whether `transcript` is the assistant heard through the speakers: after `normaliseForEcho`, it
 * lies within one of the last `remember` of `recentUtterances` (oldest first, as the assistant said
 * them) with at most `slipShare` of its words slipped. A transcript under `minWords` words counts
 * only as a whole utterance, word for word. An empty transcript is not echo.
 */
export function isSelfEcho(
  transcript: string,
  recentUtterances: readonly string[],
  options: Partial<SelfEchoOptions> = {},
): boolean {
  const { remember, slipShare, minWords } = resolveSelfEcho(options);
  const heard = normaliseForEcho(transcript);
  if (heard.length === 0) return false;
  const said = recentUtterances.slice(-remember).map(normaliseForEcho);
  if (heard.length < minWords) {
    return said.some((words) => words.length === heard.length && words.every((w, i) => w === heard[i]));
  }
  const allowed = Math.floor(heard.length * slipShare);
  return said.some((words) => slipsWithin(heard, words) <= allowed);
}
