import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BotFileError, DEFAULT_LIMITS, checkBotApps, checkBotsFitSite, loadBots, parseBotFile, publicBot } from '../../server/bots';
import { TALK } from '../../common/talk';
import { VOICES } from '../../common/voice/style';

const FILE = 'bots/test.md';
const PROMPT = 'You are a test bot. Answer briefly.';

/** A bot file with `front` as its front matter (a name is added unless `front` sets one). */
const botFile = (front: string, body = PROMPT) => `---\n${/^name:/m.test(front) ? '' : 'name: Test\n'}${front}\n---\n${body}\n`;

function refusal(text: string, file = FILE): BotFileError {
  try {
    parseBotFile(file, text);
  } catch (error) {
    if (error instanceof BotFileError) return error;
    throw error;
  }
  throw new Error('the file was accepted');
}

async function folderWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'confab-bots-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('bot files', () => {
  it('loads the shipped demo bot, a spoken companion that remembers the person', async () => {
    const bots = await loadBots(join(import.meta.dirname, '../../bots'));
    const demo = bots.get('demo');
    expect(demo).toBeDefined();
    expect(demo).toMatchObject({
      slug: 'demo',
      memory: 'person+recall',
      voice: { by: 'browser', gapMs: 120, visual: 'halo', language: 'en' },
    });
    expect(demo?.prompt).toMatch(/spoken/);
    expect(demo?.limits.perDay?.spend).toBeLessThanOrEqual(1);
    expect([...bots.keys()]).not.toContain('README');
  });

  it('fills every field a file leaves out from the defaults', () => {
    const bot = parseBotFile(FILE, botFile(''));
    expect(bot).toEqual({
      slug: 'test',
      name: 'Test',
      prompt: PROMPT,
      voice: { ...TALK, by: 'browser', visual: 'halo', voices: [...VOICES], language: 'en' },
      memory: 'thread',
      languages: ['en'],
      limits: DEFAULT_LIMITS,
      apps: [],
      skills: [],
      for: { to: 'anyone' },
      work: { to: 'people' },
    });
  });

  it('keeps the apps a bot may use, and refuses one named twice or one no folder provides', () => {
    expect(parseBotFile(FILE, botFile('apps: [lists, clock]')).apps).toEqual(['lists', 'clock']);
    expect(() => parseBotFile(FILE, botFile('apps: [lists, lists]'))).toThrow('bots/test.md: apps lists "lists" twice.');
    expect(() => parseBotFile(FILE, botFile('apps: [Lists!]'))).toThrow('bots/test.md: apps names "Lists!"; an app is named in lower-case letters, digits and underscores, as its folder in server/apps/.');
    const bots = new Map([['test', parseBotFile(FILE, botFile('apps: [lists, garden]'))]]);
    expect(() => {
      checkBotApps(bots, ['clock', 'lists']);
    }).toThrow('test.md: apps names "garden", which no app in server/apps/ provides (a folder, or an app file <app>.md); the apps here are: clock, lists.');
    expect(() => {
      checkBotApps(bots, ['garden', 'lists']);
    }).not.toThrow();
  });

  it('refuses the start when one answer of a bot holds more than a site spend ceiling, which would refuse it for ever', () => {
    const bots = new Map([['test', parseBotFile(FILE, botFile('limits: { spend: 0.5, perDay: { spend: 5 } }'))]]);
    expect(() => {
      checkBotsFitSite(bots, { perMinute: { spend: 0.25 }, perDay: { spend: 20 } });
    }).toThrow("test.md: limits.spend is $0.5 an answer, more than the site's perMinute spend in CONFAB_SITE_LIMITS ($0.25), so no answer of this bot could ever be given; lower it, or raise that ceiling.");
    expect(() => {
      checkBotsFitSite(bots, { perMinute: { answers: 1 }, perDay: { spend: 0.5 } });
    }).not.toThrow();
    expect(() => {
      checkBotsFitSite(bots, undefined);
    }).not.toThrow();
  });

  it('takes the gap in seconds and keeps it in milliseconds, merged through the talk settings', () => {
    const bot = parseBotFile(FILE, botFile('voice: { gap: 0.3, steps: 6, words: 10 }'));
    expect(bot.voice).toMatchObject({ gapMs: 300, steps: 6, opening: 6, words: 10 });
    expect(parseBotFile(FILE, botFile('voice: { gap: 0.12, opening: 3 }')).voice).toMatchObject({ gapMs: 120, steps: 8, opening: 3 });
  });

  it('keeps the floor a late piece may drop to, the steps unless the file sets it', () => {
    expect(parseBotFile(FILE, botFile('voice: { steps: 6 }')).voice.floor).toBe(6);
    expect(parseBotFile(FILE, botFile('voice: { steps: 6, floor: 3 }')).voice.floor).toBe(3);
    expect(parseBotFile(FILE, botFile('voice: { steps: 8, floor: 8 }')).voice.floor).toBe(8);
  });

  it('lets an endpoint voice name its own voices, and offers the deployment’s when it names none', () => {
    expect(parseBotFile(FILE, botFile('voice: { by: endpoint, voices: [alloy, nova] }')).voice.voices).toEqual(['alloy', 'nova']);
    expect(parseBotFile(FILE, botFile('voice: { by: endpoint }')).voice.voices).toEqual([]);
  });

  it('speaks the first listed language when the voice names none', () => {
    const bot = parseBotFile(FILE, botFile('languages: [fr, en]'));
    expect(bot.voice.language).toBe('fr');
    expect(bot.languages).toEqual(['fr', 'en']);
  });

  it('keeps provider, model and greeting, trimmed', () => {
    const bot = parseBotFile(FILE, botFile('provider: groq\nmodel: " llama-3.1-8b "\ngreeting: Hi there.'));
    expect(bot).toMatchObject({ provider: 'groq', model: 'llama-3.1-8b', greeting: 'Hi there.' });
  });

  it('replaces the default windows with the ones a file names, keeping default per-answer ceilings', () => {
    const bot = parseBotFile(FILE, botFile('limits: { spend: 0.10, perHour: { answers: 30, spend: 0.5 } }'));
    expect(bot.limits).toEqual({ steps: DEFAULT_LIMITS.steps, spend: 0.1, minutes: DEFAULT_LIMITS.minutes, perHour: { answers: 30, spend: 0.5 } });
    expect(parseBotFile(FILE, botFile('limits: { steps: 2 }')).limits).toEqual({ ...DEFAULT_LIMITS, steps: 2 });
  });

  it.each([
    ['the name is empty', 'name: ~', 'name', 'a string'],
    ['the name is not a string', 'name: 42', 'name', 'a string'],
    ['the voice is not a mapping', 'voice: loud', 'voice', 'a mapping'],
    ['the speaker is unknown', 'voice: { by: phone }', 'voice.by', 'browser, endpoint'],
    ['steps are out of range', 'voice: { steps: 0 }', 'voice.steps', 'from 1 to 64'],
    ['the opening steps are fractional', 'voice: { opening: 2.5 }', 'voice.opening', 'whole number'],
    ['the floor is above the steps', 'voice: { steps: 6, floor: 7 }', 'voice.floor', 'at most voice.steps (6)'],
    ['words are not a number', 'voice: { words: twelve }', 'voice.words', 'a number'],
    ['the gap is too long', 'voice: { gap: 5 }', 'voice.gap', 'seconds from 0 to 2'],
    ['the orb shape is unknown', 'voice: { visual: orb }', 'voice.visual', 'halo, ribbon, bloom, tide, lattice'],
    ['a browser voice is unknown', 'voice: { voices: [F1, F9] }', 'voice.voices', 'F1, F2'],
    ['the voice list is empty', 'voice: { voices: [] }', 'voice.voices', 'one or more'],
    ['the language is unknown', 'voice: { language: xx }', 'voice.language', 'en, ko'],
    ['the languages list an unknown one', 'languages: [en, zz]', 'languages', 'en, ko'],
    ['the languages repeat one', 'languages: [en, en]', 'languages', 'twice'],
    ['the voice language is not offered', 'voice: { language: en }\nlanguages: [fr]', 'voice.language', 'does not list'],
    ['the memory kind is unknown', 'memory: forever', 'memory', 'none, thread, person, person+recall'],
    ['limits are not a mapping', 'limits: 5', 'limits', 'a mapping'],
    ['per-answer steps are zero', 'limits: { steps: 0 }', 'limits.steps', 'from 1 to 64'],
    ['per-answer spend is negative', 'limits: { spend: -1 }', 'limits.spend', 'from 0 to 100'],
    ['per-answer minutes are zero', 'limits: { minutes: 0 }', 'limits.minutes', 'above 0'],
    ['a window counts fractional answers', 'limits: { perDay: { answers: 1.5, spend: 1 } }', 'limits.perDay.answers', 'whole number'],
    ['a window sets nothing', 'limits: { perDay: {} }', 'limits.perDay', 'sets nothing'],
    ['no window caps spend', 'limits: { perMinute: { answers: 5 } }', 'limits', 'caps no spend'],
    ['a window cannot hold one answer’s spend', 'limits: { spend: 0.5, perDay: { spend: 0.1 } }', 'limits', 'cannot admit a single answer'],
    ['the provider is empty', 'provider: ""', 'provider', 'a string'],
    ['the model is a list', 'model: [a, b]', 'model', 'a string'],
    ['the greeting is too long', `greeting: ${'a'.repeat(600)}`, 'greeting', '1 to 500'],
  ])('refuses a file where %s, naming the file and the field', (_case, front, field, accepts) => {
    const error = refusal(botFile(front));
    expect(error.file).toBe(FILE);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`${FILE}: ${field} `);
    expect(error.message).toContain(accepts);
  });

  it.each([
    ['a bot file', 'nmae: Typo', 'nmae', 'name, voice, memory'],
    ['the voice block', 'voice: { colour: blue }', 'voice.colour', 'by, steps, opening, floor, words, gap, visual, voices, language'],
    ['the limits', 'limits: { perYear: { spend: 1 } }', 'limits.perYear', 'perMinute, perHour, perDay, perWeek, perMonth'],
    ['a window', 'limits: { perDay: { tokens: 100 } }', 'limits.perDay.tokens', 'answers, spend'],
  ])('refuses an unknown key in %s, naming it and the fields it accepts', (_where, front, field, accepts) => {
    const error = refusal(botFile(front));
    expect(error.field).toBe(field);
    expect(error.message).toContain('is not a field');
    expect(error.message).toContain(accepts);
  });

  it('refuses a file without a name, saying what it must be', () => {
    const error = refusal('---\nmemory: thread\n---\nHi\n');
    expect(error.field).toBe('name');
    expect(error.message).toContain('is missing');
  });

  it('refuses a file without front matter, with broken YAML, with a repeated key or with no prompt', () => {
    expect(refusal('You are a bot with no front matter.').field).toBe('front matter');
    expect(refusal('---\nname: [unclosed\n---\nHi\n').field).toBe('front matter');
    expect(refusal('---\nname: A\nname: B\n---\nHi\n').field).toBe('front matter');
    expect(refusal('---\n- a list\n---\nHi\n').message).toContain('a mapping');
    expect(refusal(botFile('', '   ')).field).toBe('prompt');
  });

  it('reads front matter written with Windows line endings', () => {
    expect(parseBotFile(FILE, '---\r\nname: Crlf\r\n---\r\nHello.\r\n')).toMatchObject({ name: 'Crlf', prompt: 'Hello.' });
  });

  it('refuses a file whose name is not a bot slug, naming the file', async () => {
    const dir = await folderWith({ 'Study_Buddy.md': botFile('') });
    const error = await loadBots(dir).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(BotFileError);
    expect((error as BotFileError).file).toBe(join(dir, 'Study_Buddy.md'));
    expect((error as BotFileError).field).toBe('slug');
    expect((error as BotFileError).message).toContain('lower-case letters, digits and single dashes');
  });

  it('stops at the first invalid file in a folder, naming it, and loads a valid folder by slug', async () => {
    const bad = await folderWith({ 'a.md': botFile(''), 'b.md': botFile('memory: forever') });
    await expect(loadBots(bad)).rejects.toThrow(`${join(bad, 'b.md')}: memory `);
    const good = await folderWith({ 'a.md': botFile(''), 'study-buddy.md': botFile('name: Buddy'), 'notes.txt': 'not a bot', 'README.md': '# bots' });
    expect([...(await loadBots(good)).keys()]).toEqual(['a', 'study-buddy']);
  });

  it('refuses a missing folder, saying what it needs', async () => {
    await expect(loadBots(join(tmpdir(), 'confab-no-such-folder'))).rejects.toThrow(/folder cannot be read/);
  });

  it('shows a page only the public part: never the prompt, provider, model or limits', () => {
    const bot = parseBotFile(FILE, botFile('provider: secret-provider\nmodel: secret-model\ngreeting: Hello.'));
    const shown = publicBot(bot);
    expect(shown).toEqual({ slug: 'test', name: 'Test', voice: bot.voice, memory: 'thread', languages: ['en'], greeting: 'Hello.' });
    const text = JSON.stringify(shown);
    for (const hidden of [PROMPT, 'secret-provider', 'secret-model', 'limits', 'prompt']) expect(text).not.toContain(hidden);
    shown.voice.voices.push('X');
    expect(bot.voice.voices).not.toContain('X');
  });
});
