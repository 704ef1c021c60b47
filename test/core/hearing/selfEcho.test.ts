import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import {
  isSelfEcho,
  normaliseForEcho,
  rememberedUtterances,
  resolveSelfEcho,
  SELF_ECHO,
} from '../../../src/core/hearing/selfEcho';

const said = [
  'Good morning! How did you sleep?',
  "I think there's a café near the station that opens at seven.",
  "They said their train leaves at 9:15, so we should hurry if we don't want to miss it.",
];

describe('normalising what was heard', () => {
  it('folds case, punctuation, whitespace and diacritics', () => {
    expect(normaliseForEcho('  Crème BRÛLÉE,   naïve — façade!  ')).toEqual(['creme', 'brulee', 'naive', 'facade']);
  });

  it('drops apostrophes rather than splitting on them', () => {
    expect(normaliseForEcho("Don't you’re it's")).toEqual(['dont', 'your', 'its']);
  });

  it('writes number words as digits, tens and units together', () => {
    expect(normaliseForEcho('Twenty-one people and three dogs')).toEqual(['21', 'people', 'and', '3', 'dogs']);
    expect(normaliseForEcho('21 people and 3 dogs')).toEqual(['21', 'people', 'and', '3', 'dogs']);
  });

  it('spells common homophones one way', () => {
    expect(normaliseForEcho('Their coat is there, and they’re here to hear it, okay?')).toEqual(
      normaliseForEcho('There coat is there, and there here to here it, ok?'),
    );
  });

  it('has no words for punctuation alone', () => {
    expect(normaliseForEcho(' ... !? ')).toEqual([]);
  });
});

describe('what counts as the assistant', () => {
  it('drops an exact echo of what the assistant just said', () => {
    expect(isSelfEcho('Good morning! How did you sleep?', said)).toBe(true);
  });

  it('drops an echo that differs only in case, punctuation and accents', () => {
    expect(isSelfEcho('i think theres a cafe near the station that opens at 7', said)).toBe(true);
  });

  it('drops a fragment from the middle of an utterance', () => {
    expect(isSelfEcho('a cafe near the station', said)).toBe(true);
  });

  it('drops a fragment from the tail of an utterance', () => {
    expect(isSelfEcho("so we should hurry if we don't want to miss it", said)).toBe(true);
  });

  it('drops an echo with a recogniser slip: "there" for "their" and a dropped word', () => {
    expect(isSelfEcho('they said there train leaves at 9 15 so we hurry if we dont want to miss it', said)).toBe(true);
  });

  it('drops an echo with one word substituted in a short fragment', () => {
    expect(isSelfEcho('a cafe near the stadium', said)).toBe(true);
  });

  it('keeps a different sentence that shares words with what was said', () => {
    expect(isSelfEcho('is there a train station near the cafe', said)).toBe(false);
    expect(isSelfEcho('what time does the train leave tomorrow morning', said)).toBe(false);
  });

  it('keeps a fragment with too many slips to be the assistant', () => {
    expect(isSelfEcho('a bakery near the bus station', said)).toBe(false);
  });

  it('keeps a transcript that runs on past the echo into the person’s own words', () => {
    expect(isSelfEcho('we should hurry if we want to miss it no wait let us take the next one', said)).toBe(false);
  });

  it('keeps a person’s short word even when the assistant just said it', () => {
    const song = ["Don't stop believing, hold on to that feeling."];
    expect(isSelfEcho('stop', song)).toBe(false);
    expect(isSelfEcho('hold on', song)).toBe(false);
    expect(isSelfEcho('yes', ['Yes, I can do that.'])).toBe(false);
  });

  it('drops a short transcript that is a whole short utterance, word for word', () => {
    expect(isSelfEcho('okay', ['Sure thing.', 'OK!'])).toBe(true);
    expect(isSelfEcho('thank you', ['Thank you.'])).toBe(true);
    expect(isSelfEcho('thank you', ['Thank you very much.'])).toBe(false);
  });

  it('looks only at the last few utterances it is given', () => {
    const history = ['The museum closes at five today.', 'One.', 'Two.', 'Three.'];
    expect(rememberedUtterances).toBe(3);
    expect(isSelfEcho('the museum closes at five today', history)).toBe(false);
    expect(isSelfEcho('the museum closes at five today', history, { remember: 4 })).toBe(true);
  });

  it('keeps an empty transcript, and anything when nothing was said', () => {
    expect(isSelfEcho('', said)).toBe(false);
    expect(isSelfEcho('...', said)).toBe(false);
    expect(isSelfEcho('good morning how did you sleep', [])).toBe(false);
  });

  it('allows more slips when asked to', () => {
    expect(isSelfEcho('a bakery near the bus station', said, { slipShare: 0.5 })).toBe(true);
  });
});

describe('options', () => {
  it('merges partial options over the defaults', () => {
    expect(resolveSelfEcho({ remember: 5 })).toEqual({ ...SELF_ECHO, remember: 5 });
  });

  it('names the option, its value and its range when one is wrong', () => {
    expect(() => resolveSelfEcho({ remember: 0 })).toThrow(OptionError);
    expect(() => resolveSelfEcho({ remember: 2.5 })).toThrow('selfEcho.remember is 2.5; it must be a whole number from 1 to 50.');
    expect(() => resolveSelfEcho({ slipShare: 0.9 })).toThrow('selfEcho.slipShare is 0.9; it must be a number from 0 to 0.5.');
    expect(() => isSelfEcho('hello there', said, { minWords: Number.NaN })).toThrow(/minWords is NaN/);
  });
});
