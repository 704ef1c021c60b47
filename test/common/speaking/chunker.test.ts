import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { chunkAll, cutPiece, dropKept, endText, pushText, startChunking } from '../../../common/speaking/chunker';
import type { ChunkerState } from '../../../common/speaking/chunker';
import { codeUnits, feed, randomDeltas } from '../../helpers/chunkFeed';
import { seededRandom as seeded } from '../../helpers/random';

/** `count` sentences of about 40 to 120 characters, each different, the same on every run. */
function sentences(count: number, seed: number): string[] {
  const random = seeded(seed);
  return Array.from({ length: count }, (_, i) => {
    const filler = Array.from({ length: 5 + Math.floor(random() * 14) }, () => 'quite').join(' ');
    return `Point ${i + 1} is ${filler} useful.`;
  });
}

describe('startChunking', () => {
  it('refuses settings out of range with a message naming the setting', () => {
    expect(() => startChunking({ words: 2 })).toThrow(OptionError);
    expect(() => startChunking({ pieceChars: 10 })).toThrow(/voice\.pieceChars is 10/);
  });
});

describe('the opening piece', () => {
  it('is the first sentence when it has a dozen words or fewer', () => {
    expect(chunkAll('Hello there. How can I help you today?')).toEqual(['Hello there.', 'How can I help you today?']);
  });

  it('leaves at the space after its full stop, before the rest of the answer arrives', () => {
    const { perDelta } = feed(['Sure thing.', ' ', 'Here', ' is more.']);
    expect(perDelta).toEqual([[], ['Sure thing.'], [], []]);
  });

  it('is cut at the first clause when the first sentence runs past a dozen words', () => {
    const opening = 'When you get to the station tomorrow morning,';
    const rest = 'take the second exit and walk north for ten minutes.';
    expect(chunkAll(`${opening} ${rest}`)).toEqual([opening, rest]);
  });

  it('leaves as soon as its sentence passes a dozen words, without waiting for the sentence to end', () => {
    const words = 'When you get to the station tomorrow morning, take the second exit and walk north for ten minutes.';
    const { perDelta } = feed(words.split(' ').map((word) => `${word} `));
    expect(perDelta.findIndex((pieces) => pieces.length > 0)).toBe(12);
    expect(perDelta[12]).toEqual(['When you get to the station tomorrow morning,']);
  });

  it.each([
    ['a semicolon', 'We tried the early train on Monday;', 'it was late again and nobody on board seemed surprised.'],
    ['a colon', 'There is one thing you should know first:', 'the museum closes at noon on every public holiday.'],
    ['a spaced em dash', 'It was a long day at the office —', 'the printer jammed twice and the coffee ran out.'],
    ['a spaced hyphen', 'It was a long day at the office -', 'the printer jammed twice and the coffee ran out.'],
  ])('is cut after %s as readily as after a comma', (_, opening, rest) => {
    expect(chunkAll(`${opening} ${rest}`)).toEqual([opening, rest]);
  });

  it('is cut after an em dash written between two words, keeping the dash', () => {
    expect(chunkAll('It was a long day at the office—the printer jammed twice and the coffee ran out.')).toEqual([
      'It was a long day at the office —',
      'the printer jammed twice and the coffee ran out.',
    ]);
  });

  it('passes over a lead-in of fewer than three words such as "Well,"', () => {
    const opening = 'Well, when you get to the station tomorrow morning,';
    const rest = 'take the second exit and walk north.';
    expect(chunkAll(`${opening} ${rest}`)).toEqual([opening, rest]);
  });

  it('is the whole first sentence, however long, when it has no clause boundary', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog and then runs all the way back home again.';
    expect(chunkAll(`${sentence} Done.`)).toEqual([sentence, 'Done.']);
  });

  it('is the whole first sentence when its only clause boundary would leave fewer than three words after it', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog and then runs all the way home, again.';
    expect(chunkAll(`${sentence} Done.`)).toEqual([sentence, 'Done.']);
  });

  it('follows the words setting', () => {
    const text = 'I can help with that, and I will start right now.';
    expect(chunkAll(text)).toEqual([text]);
    expect(chunkAll(text, { words: 5 })).toEqual(['I can help with that,', 'and I will start right now.']);
  });

  it('keeps to the piece limit, breaking at the last space before it', () => {
    const sentence = Array.from({ length: 70 }, (_, i) => `word${i}`).join(' ');
    const [opening, ...rest] = chunkAll(`${sentence}. Done.`);
    expect(opening?.length).toBeLessThanOrEqual(300);
    expect(opening?.length).toBeGreaterThan(290);
    expect([opening, ...rest].join(' ')).toBe(`${sentence}. Done.`);
  });

  it('is the first sentence with a letter or digit in it, not a line of punctuation', () => {
    expect(chunkAll('---\n!!!\nHello there.')).toEqual(['Hello there.']);
  });
});

describe('later pieces', () => {
  it('pack whole sentences greedily into pieces of at most 300 characters', () => {
    const later = sentences(20, 1);
    const [opening, ...pieces] = chunkAll(['Here is the plan.', ...later].join(' '));
    expect(opening).toBe('Here is the plan.');
    let next = 0;
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(300);
      let count = 0;
      while (later.slice(next, next + count + 1).join(' ').length <= 300 && next + count < later.length) count += 1;
      expect(piece).toBe(later.slice(next, next + count).join(' '));
      next += count;
    }
    expect(next).toBe(later.length);
  });

  it('leave once the next sentence would overflow them, before the answer ends', () => {
    const later = ['A'.repeat(99) + '.', 'B'.repeat(99) + '.', 'C'.repeat(99) + '.'];
    const { perDelta, atEnd } = feed(['Sure. ', `${later[0]} `, `${later[1]} `, `${later[2]} `]);
    expect(perDelta).toEqual([['Sure.'], [], [], [`${later[0]} ${later[1]}`]]);
    expect(atEnd).toEqual([later[2]]);
  });

  it('split a sentence longer than 300 characters at its clause boundaries', () => {
    const clauses = Array.from({ length: 12 }, (_, i) => `and then clause ${i} went on for a little while,`);
    const sentence = `${clauses.join(' ')} until it stopped.`;
    const [, ...pieces] = chunkAll(`Listen. ${sentence}`);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join(' ')).toBe(sentence);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(300);
      expect(piece).toMatch(/[,.]$/);
    }
  });

  it('break a clause longer than 300 characters with no boundary at the last space before the limit', () => {
    const sentence = `${Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ')}.`;
    const [, first, second] = chunkAll(`Listen. ${sentence}`);
    expect(first?.length).toBeLessThanOrEqual(300);
    expect(sentence.charAt(first?.length ?? 0)).toBe(' ');
    expect(sentence.lastIndexOf(' ', 300)).toBe(first?.length);
    expect(`${first} ${second}`).toBe(sentence);
  });

  it('break a run with no space at all at the limit, never between the halves of a character', () => {
    const run = `x${'𝒜'.repeat(200)}`;
    const pieces = chunkAll(`Listen. ${run}.`);
    expect(pieces.slice(1).join('')).toBe(`${run}.`);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(300);
      expect(piece).not.toMatch(/\p{Cs}/u);
    }
  });

  it('follow the pieceChars setting', () => {
    const later = sentences(6, 2);
    const pieces = chunkAll(['Here is the plan.', ...later].join(' '), { pieceChars: 120 });
    expect(pieces.slice(1).join(' ')).toBe(later.join(' '));
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(120);
  });
});

describe('sentence boundaries', () => {
  it.each([
    ['Mr.', 'I met Mr. Smith at noon.'],
    ['Mrs.', 'I met Mrs. Smith at noon.'],
    ['Ms.', 'I met Ms. Smith at noon.'],
    ['Dr.', 'I met Dr. Smith at noon.'],
    ['Prof.', 'Ask Prof. Lee about it.'],
    ['St.', 'We flew to St. Louis on Monday.'],
    ['e.g.', 'Take a fruit, e.g. an apple.'],
    ['i.e.', 'Use the short one, i.e. the first.'],
    ['vs.', 'It was Spain vs. France last night.'],
    ['approx.', 'It takes approx. 5 minutes.'],
  ])('are never made by "%s"', (_, sentence) => {
    expect(chunkAll(`${sentence} Then we left.`)).toEqual([sentence, 'Then we left.']);
  });

  it.each([
    ['etc.', 'Bring pens, paper, etc.'],
    ['Jr.', 'We heard Martin Luther King Jr.'],
    ['p.m.', 'Meet me at 5 p.m.'],
    ['U.S.', 'She moved to the U.S.'],
    ['No.', 'The answer is No.'],
  ])('are made by "%s" when a capitalised word follows', (_, sentence) => {
    expect(chunkAll(`${sentence} Then we left.`)).toEqual([sentence, 'Then we left.']);
  });

  it.each([
    ['etc.', 'Bring pens, paper, etc. and a snack.'],
    ['Jr.', 'Martin Luther King Jr. spoke first.'],
    ['a.m.', 'Meet me at 9 a.m. tomorrow.'],
    ['No.', 'Room No. 5 is free.'],
  ])('are not made by "%s" when a lower-case word or a number follows', (_, sentence) => {
    expect(chunkAll(`${sentence} Then we left.`)).toEqual([sentence, 'Then we left.']);
  });

  it('are not made by single initials', () => {
    expect(chunkAll('J. R. R. Tolkien wrote it. Read it.')).toEqual(['J. R. R. Tolkien wrote it.', 'Read it.']);
  });

  it('are not made by the point in a decimal, a price or a version', () => {
    expect(chunkAll('Pi is about 3.14 and coffee costs $2.50 here. Use 1.2.3 now.')).toEqual([
      'Pi is about 3.14 and coffee costs $2.50 here.',
      'Use 1.2.3 now.',
    ]);
  });

  it('are made by an ellipsis before a capital and not by one before a lower-case word', () => {
    expect(chunkAll('Wait... what? Well… Let me think.')).toEqual(['Wait... what?', 'Well… Let me think.']);
    expect(chunkAll('Well... Let me think about it.')).toEqual(['Well...', 'Let me think about it.']);
  });

  it('keep a closing quote or bracket with the sentence it closes', () => {
    expect(chunkAll('He said "hi." Then he left.')).toEqual(['He said "hi."', 'Then he left.']);
    expect(chunkAll('(It works.) Then it stops.')).toEqual(['(It works.)', 'Then it stops.']);
  });

  it('are made by question and exclamation marks', () => {
    expect(chunkAll('Really? Yes! Great.')).toEqual(['Really?', 'Yes! Great.']);
  });

  it('are made by every line break, and a line without a stop is given one', () => {
    expect(chunkAll('Thanks for asking\n\nI can help\nwith that')).toEqual([
      'Thanks for asking.',
      'I can help. with that.',
    ]);
    expect(chunkAll('First line\r\nSecond line')).toEqual(['First line.', 'Second line.']);
  });

  it('treat each numbered list item as a sentence and drop its number', () => {
    expect(chunkAll('Here are the steps:\n1. Open the app\n2) Tap settings\n3. Choose a voice.')).toEqual([
      'Here are the steps:',
      'Open the app. Tap settings. Choose a voice.',
    ]);
  });

  it('are not made by the dots in an email address or a domain', () => {
    expect(chunkAll('Email jo.smith@example.com or visit example.org today. Thanks.')).toEqual([
      'Email jo.smith@example.com or visit example.org today.',
      'Thanks.',
    ]);
  });
});

describe('cleaning for the ear', () => {
  it('strips emphasis, strikethrough and inline code marks but keeps their words', () => {
    expect(chunkAll('This is **very** important, _really_, and ~~not~~ `npm install` my_var.')).toEqual([
      'This is very important, really, and not npm install my_var.',
    ]);
  });

  it('drops heading, bullet and quote markers', () => {
    const text = '## Title\n\n- first point\n* second point\n• third point\n+ fourth\n> quoted\n> - nested';
    expect(chunkAll(text)).toEqual([
      'Title.',
      'first point. second point. third point. fourth. quoted. nested.',
    ]);
  });

  it('speaks a link as its text', () => {
    expect(chunkAll('Read [the guide](https://example.com/a_(b)) first, see ![a chart](c.png).')).toEqual([
      'Read the guide first, see a chart.',
    ]);
  });

  it('drops bare URLs, keeping the punctuation after them', () => {
    const text = 'The docs are online (https://example.com/docs). Also www.example.org, or <https://x.io>. Thanks.';
    expect(chunkAll(text)).toEqual([
      'The docs are online.',
      'Also, or. Thanks.',
    ]);
  });

  it('skips a fenced code block entirely', () => {
    const text = 'Run this:\n```bash\nnpm install. Then wait.\n```\nThen restart.';
    expect(chunkAll(text)).toEqual(['Run this:', 'Then restart.']);
    expect(chunkAll('Or this:\n~~~\nmake all\n~~~~\nDone.')).toEqual(['Or this:', 'Done.']);
  });

  it('skips a fence that arrives split across deltas', () => {
    expect(feed(['Run this:\n``', '`bash\nnpm in', 'stall\n`', '``\nThen ', 'restart.']).pieces).toEqual([
      'Run this:',
      'Then restart.',
    ]);
  });

  it('skips everything after a fence that is never closed', () => {
    expect(chunkAll('Run this:\n```\nnpm install\nThe end.')).toEqual(['Run this:']);
  });

  it('ends a code block only at a fence of the same kind at the start of a line', () => {
    expect(chunkAll('Look:\n````\nx ```\n```\n~~~\n````\nDone.')).toEqual(['Look:', 'Done.']);
  });

  it('takes triple backticks closed on the same line as inline code, not as a fence', () => {
    expect(chunkAll('```ls``` lists files. Done.')).toEqual(['ls lists files.', 'Done.']);
  });

  it('drops emoji with their skin tones, joiners, flags and keycaps', () => {
    expect(chunkAll('Great job 🎉! You did it 👍🏽. Family 👨‍👩‍👧 time 🇬🇧 ❤️ 1️⃣.')).toEqual([
      'Great job!',
      'You did it. Family time 1.',
    ]);
  });

  it('collapses runs of spaces and tabs to one space', () => {
    expect(chunkAll('Hello   there,\tfriend.   How  are you?')).toEqual(['Hello there, friend.', 'How are you?']);
  });

  it.each([
    ['only a code block', '```js\nconsole.log("hi.");\n```'],
    ['only emoji', '🎉 👍🏽\n😀'],
    ['only punctuation and markup', '... !!! --- ** __ []()'],
    ['only whitespace', '  \n\n\t '],
    ['nothing', ''],
  ])('yields no pieces for an answer of %s', (_, text) => {
    expect(chunkAll(text)).toEqual([]);
  });
});

describe('streaming', () => {
  const texts = [
    'Hello there. How can I help you today?',
    'When you get to the station tomorrow morning, take the second exit and walk north for ten minutes. Then call me.',
    'I met Dr. Smith at 5 p.m. tomorrow, e.g. after work. J. R. R. Tolkien wrote it... and then?',
    'Bring pens, etc. Then go. Room No. 5 is free, Jr. said. She moved to the U.S. Then back.',
    'He said "hi." Then (quietly) he left! Pi is 3.14, and $2.50 is cheap. Email jo.smith@example.com today.',
    '## Steps\n\n1. Open **the app**\n2. Tap [settings](https://example.com/s)\n- Choose a _voice_ 🎉',
    'Run:\n```bash\nnpm i\n```\nDone 👍🏽!\n~~~\nmore\n~~~~\n```ls``` lists.',
    'Wait... what? Well… Let me think — no, really; it is fine: go. 👨‍👩‍👧 Family 🇬🇧 time.\r\n> Quote ~~this~~ `code`.',
    `Listen. ${Array.from({ length: 12 }, (_, i) => `and clause ${i} went on for a while,`).join(' ')} end.`,
    `x${'𝒜'.repeat(200)} and ${Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ')}.`,
    ['Here is the plan.', ...sentences(20, 3)].join(' '),
    'Unclosed:\n```\ncode\nmore code',
  ];

  function fragmentText(random: () => number): string {
    const fragments = [
      'Hello there.', 'Dr. Who', 'e.g.', 'etc.', 'And', 'then', 'Wait...', 'what?', '3.14', '**bold**', '_it_',
      '[link](https://x.io/a)', 'https://example.com/a.b', '🎉', '👍🏽',
      '\n', '\n\n', '\n- ', '\n1. ', '\n```js\nx = 1;\n```\n',
      '—', ',', ';', ':', '"Quoted."', '(aside)', 'Yes!', 'No.', '5', 'J.', 'R.', 'Tolkien', 'the', 'long', 'road',
    ];
    return Array.from(
      { length: 10 + Math.floor(random() * 60) },
      () => fragments[Math.floor(random() * fragments.length)] ?? '',
    ).join(' ');
  }

  const random = seeded(7);
  const corpus = [...texts, ...Array.from({ length: 40 }, () => fragmentText(random))];

  it.each([
    ['the defaults', {}],
    ['a short opening and small pieces', { words: 4, pieceChars: 60 }],
  ])('yields the same pieces however an answer is split, with %s', (_, options) => {
    const split = seeded(11);
    for (const text of corpus) {
      const whole = chunkAll(text, options);
      expect(feed(codeUnits(text), options).pieces).toEqual(whole);
      for (let run = 0; run < 8; run += 1) expect(feed(randomDeltas(text, split), options).pieces).toEqual(whole);
    }
  });

  it('never yields an empty, padded, punctuation-only, oversized or marked-up piece', () => {
    for (const text of corpus) {
      for (const piece of chunkAll(text)) {
        expect(piece).toBe(piece.trim());
        expect(piece).toMatch(/[\p{L}\p{N}]/u);
        expect(piece.length).toBeLessThanOrEqual(300);
        expect(piece).not.toMatch(/```|\*|https?:|\s\s|\p{Extended_Pictographic}/u);
      }
    }
  });

  it('never changes the state it is given', () => {
    const deepFreeze = (state: ChunkerState): ChunkerState =>
      Object.freeze({ ...state, sentence: Object.freeze([...state.sentence]) });
    const state = deepFreeze(pushText(startChunking(), 'When you get to the station tomorrow morning, take the').state);
    const before = JSON.stringify(state);
    expect(pushText(state, ' second exit and walk. Then go').pieces).toEqual([
      'When you get to the station tomorrow morning,',
    ]);
    expect(endText(state).pieces).toEqual(['When you get to the station tomorrow morning, take the.']);
    expect(JSON.stringify(state)).toBe(before);
  });

  it('carries on identically from a state that went through JSON', () => {
    const first = pushText(startChunking({ words: 5 }), 'Sure, I can help with that, ');
    const revived = JSON.parse(JSON.stringify(first.state)) as ChunkerState;
    expect(pushText(revived, 'and I will start. Now.')).toEqual(pushText(first.state, 'and I will start. Now.'));
  });

  it('hands back a fresh state with the same settings at the end of an answer', () => {
    const { state } = endText(pushText(startChunking({ words: 6, pieceChars: 90 }), 'Hello. More').state);
    expect(state).toEqual(startChunking({ words: 6, pieceChars: 90 }));
  });
});

describe('pieces cut to a budget', () => {
  const ANSWER =
    'Sure, here is the plan for tomorrow. We meet at nine by the river, right next to the old stone bridge. ' +
    'Bring some water, a light jacket and a small snack for the walk. I will send you the map and the bus times tonight.';

  /** Everything after the opening, held, then cut piece by piece to the budgets given in turn. */
  function cutTo(text: string, budgets: readonly number[]): string[] {
    const pushed = pushText(startChunking(), text, { keep: true });
    let { state } = endText(pushed.state, { keep: true });
    const pieces = [...pushed.pieces];
    for (const budget of budgets) {
      const next = cutPiece(state, budget);
      if (next.piece === null) break;
      pieces.push(next.piece);
      state = next.state;
    }
    return pieces;
  }

  it('holds every sentence after the opening until one is cut, whatever arrives', () => {
    const pushed = pushText(startChunking(), `${ANSWER} More`, { keep: true });
    expect(pushed.pieces).toEqual(['Sure, here is the plan for tomorrow.']);
    expect(pushed.state.kept).toHaveLength(3);
    expect(cutPiece(startChunking()).piece).toBeNull();
  });

  it('grows with its budget: one sentence, then two, then the rest', () => {
    expect(cutTo(ANSWER, [70, 140, 300])).toEqual([
      'Sure, here is the plan for tomorrow.',
      'We meet at nine by the river, right next to the old stone bridge.',
      'Bring some water, a light jacket and a small snack for the walk. I will send you the map and the bus times tonight.',
    ]);
  });

  it('takes a sentence longer than its budget phrase by phrase, never cutting a phrase', () => {
    expect(cutTo(ANSWER, [40, 40, 40, 40])).toEqual([
      'Sure, here is the plan for tomorrow.',
      'We meet at nine by the river,',
      'right next to the old stone bridge.',
      'Bring some water,',
      'a light jacket and a small snack for the walk.',
    ]);
  });

  it('speaks a phrase longer than its budget whole, and never leaves a lead-in of fewer than three words alone', () => {
    expect(cutTo('Hello. Well, the quick brown fox jumps over the lazy dog, and then it runs home.', [0, 0, 0])).toEqual([
      'Hello.',
      'Well, the quick brown fox jumps over the lazy dog,',
      'and then it runs home.',
    ]);
  });

  it('leaves a sentence that fits a piece of its own for the next piece rather than splitting it', () => {
    expect(cutTo('Hi. One two three four. Five six seven eight nine ten eleven.', [40, 60])).toEqual([
      'Hi.',
      'One two three four.',
      'Five six seven eight nine ten eleven.',
    ]);
  });

  it('keeps to pieceChars, whatever the budget', () => {
    const pieces = cutTo(['Hello.', ...sentences(12, 5)].join(' '), [5000, 5000, 5000, 5000, 5000, 5000]);
    expect(pieces.slice(1).every((piece) => piece.length <= 300)).toBe(true);
  });

  it('cuts the same pieces however the answer arrives', () => {
    const split = seeded(23);
    const whole = cutTo(ANSWER, [45, 90, 45, 300]);
    for (let run = 0; run < 8; run += 1) {
      let state = startChunking();
      const pieces: string[] = [];
      for (const delta of randomDeltas(ANSWER, split)) {
        const step = pushText(state, delta, { keep: true });
        pieces.push(...step.pieces);
        state = step.state;
      }
      const ended = endText(state, { keep: true });
      pieces.push(...ended.pieces);
      state = ended.state;
      for (const budget of [45, 90, 45, 300]) {
        const next = cutPiece(state, budget);
        if (next.piece !== null) pieces.push(next.piece);
        state = next.state;
      }
      expect(pieces).toEqual(whole);
    }
  });

  it('cuts a whole answer to a budget given the pieces before each piece', () => {
    const seen: number[] = [];
    const pieces = chunkAll(ANSWER, {}, (cut) => {
      seen.push(cut.length);
      return cut.length * 40;
    });
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(pieces).toEqual([
      'Sure, here is the plan for tomorrow.',
      'We meet at nine by the river,',
      'right next to the old stone bridge.',
      'Bring some water, a light jacket and a small snack for the walk. I will send you the map and the bus times tonight.',
    ]);
  });

  it('drops what it holds when nothing more of the answer is to be said', () => {
    const { state } = pushText(startChunking(), ANSWER, { keep: true });
    expect(cutPiece(dropKept(state)).piece).toBeNull();
  });
});
