/**
 * Skills (`server/skills.ts`): files refused at start naming the file, a bot's `skills:` (names or
 * `all`), and what the prompt carries of them — the descriptions, never the bodies.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BotFileError, checkBotSkills, parseBotFile } from '../../server/bots';
import { checkSkillVerbs, loadSkills, parseSkillFile, promptWithSkills, skillShelf, SkillFileError, skillsPrompt, standInLines } from '../../server/skills';

const skillFile = (front: string, body = 'Do this, then that.') => `---\n${front}\n---\n${body}\n`;
const bot = (fields: string) => parseBotFile('bots/test.md', `---\nname: Test\n${fields}\n---\nYou are a test bot.`);

describe('skill files', () => {
  it('keeps a skill’s name, description, verbs and body', () => {
    const skill = parseSkillFile('skills/stocktake.md', skillFile('description: When somebody asks what is in the pantry.\nverbs: [pantry.count]', 'Count first.'));
    expect(skill).toEqual({ name: 'stocktake', description: 'When somebody asks what is in the pantry.', verbs: ['pantry.count'], body: 'Count first.' });
  });

  it('refuses, naming the file, a skill without a description, with a bad name, an unknown field or no body', () => {
    expect(() => parseSkillFile('skills/stocktake.md', skillFile('verbs: [pantry.count]'))).toThrow(/^skills\/stocktake\.md: description must be one line/);
    expect(() => parseSkillFile('skills/Stock_Take.md', skillFile('description: x'))).toThrow(SkillFileError);
    expect(() => parseSkillFile('skills/stocktake.md', skillFile('description: x\ntools: [a.b]'))).toThrow('skills/stocktake.md: tools is not a field of a skill file; the fields are description, verbs, standIn.');
    expect(() => parseSkillFile('skills/stocktake.md', skillFile('description: x', ''))).toThrow(/has no instructions/);
  });

  it('keeps what the stand-in hears and says of a skill in each language, and refuses a stand-in block it could not use', () => {
    const skill = parseSkillFile('skills/calm.md', skillFile('description: When somebody panics.\nstandIn:\n  en:\n    hears: [panic, " so scared "]\n    says: Breathe with me.\n  es:\n    hears: [pánico]\n    says: Respira conmigo.'));
    expect(skill.standIn).toEqual({ en: { hears: ['panic', 'so scared'], says: 'Breathe with me.' }, es: { hears: ['pánico'], says: 'Respira conmigo.' } });
    expect(standInLines(skill, 'es-MX')).toEqual({ hears: ['pánico'], says: 'Respira conmigo.' });
    expect(standInLines(skill, 'fr')).toBeUndefined();
    expect(() => parseSkillFile('skills/calm.md', skillFile('description: x\nstandIn: [panic]'))).toThrow('skills/calm.md: standIn must be a mapping of languages; standIn is by language');
    expect(() => parseSkillFile('skills/calm.md', skillFile('description: x\nstandIn: { hears: [panic], says: Hi. }'))).toThrow('skills/calm.md: standIn.hears is not a language; standIn is by language, each with hears and says');
    expect(() => parseSkillFile('skills/calm.md', skillFile('description: x\nstandIn: { en: { hears: [], says: Hi. } }'))).toThrow('skills/calm.md: standIn.en.hears must be a list of words or phrases');
    expect(() => parseSkillFile('skills/calm.md', skillFile('description: x\nstandIn: { en: { hears: [panic] } }'))).toThrow('skills/calm.md: standIn.en.says must be one line');
    expect(() => parseSkillFile('skills/calm.md', skillFile('description: x\nstandIn: { de: { hears: [panik], says: Hallo., reads: all } }'))).toThrow('skills/calm.md: standIn.de.reads is not a field');
  });

  it('ships the kit’s conduct skills beside plan-the-day, each heard and answered by the stand-in, and gives them to the demo bot', async () => {
    const skills = await loadSkills(join(import.meta.dirname, '../../skills'));
    const conduct = ['in-distress', 'health-law-money', 'someone-elses-data'];
    expect([...skills.keys()]).toEqual(expect.arrayContaining([...conduct, 'plan-the-day']));
    for (const name of conduct) {
      const skill = skills.get(name);
      expect(skill?.description).toMatch(/^When somebody .+ Open this before/);
      expect(Object.keys(skill?.standIn ?? {})).toEqual(['en', 'es', 'fr', 'de']);
      for (const lines of Object.values(skill?.standIn ?? {})) {
        expect(lines.hears.length).toBeGreaterThan(0);
        expect(lines.says).not.toContain('\n');
      }
    }
    const demo = parseBotFile('bots/demo.md', await readFile(join(import.meta.dirname, '../../bots/demo.md'), 'utf8'));
    expect(skillShelf(skills).of(demo).map((skill) => skill.name)).toEqual(['plan-the-day', ...conduct]);
  });

  it('refuses at start a skill that brings a verb no app has, naming the file and the verb', () => {
    const skills = new Map([['stocktake', parseSkillFile('skills/stocktake.md', skillFile('description: x\nverbs: [pantry.weigh]'))]]);
    expect(() => {
      checkSkillVerbs(skills, ['pantry.count', 'skills.open'], 'skills');
    }).toThrow('skills/stocktake.md: verbs names "pantry.weigh", which is not a verb any app in server/apps/ has.');
  });

  it('loads the shipped skills, each with a one-line description', async () => {
    const skills = await loadSkills(join(import.meta.dirname, '../../skills'));
    expect([...skills.keys()]).toContain('plan-the-day');
    for (const skill of skills.values()) expect(skill.description).not.toContain('\n');
  });

  it('loads a folder and refuses the first bad file in it by name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skills-'));
    try {
      await writeFile(join(dir, 'README.md'), 'not a skill');
      await writeFile(join(dir, 'good.md'), skillFile('description: When good.'));
      expect([...(await loadSkills(dir)).keys()]).toEqual(['good']);
      await writeFile(join(dir, 'nodesc.md'), skillFile('verbs: []'));
      await expect(loadSkills(dir)).rejects.toThrow(`${join(dir, 'nodesc.md')}: description must be one line`);
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('a bot’s skills', () => {
  const one = parseSkillFile('skills/one.md', skillFile('description: When one.', 'The first body.'));
  const two = parseSkillFile('skills/two.md', skillFile('description: When two.', 'The second body.'));

  it('names skills that exist, and is refused naming one that does not', () => {
    const bots = new Map([['test', bot('skills: [one, three]')]]);
    expect(() => {
      checkBotSkills(bots, ['one', 'two']);
    }).toThrow('test.md: skills names "three", which no file in skills/ is; the skills here are: one, two.');
    expect(() => bot('skills: [One!]')).toThrow(BotFileError);
  });

  it('with `skills: all` has every skill there is, including one added later', () => {
    const all = bot('skills: all');
    expect(all.skills).toBe('all');
    expect(skillShelf(new Map([['one', one]])).of(all).map((s) => s.name)).toEqual(['one']);
    expect(skillShelf(new Map([['one', one], ['two', two]])).of(all).map((s) => s.name)).toEqual(['one', 'two']);
    expect(skillShelf(new Map([['one', one], ['two', two]])).of(bot('skills: [two]')).map((s) => s.name)).toEqual(['two']);
    expect(bot('').skills).toEqual([]);
  });

  it('puts each skill’s name and description in the prompt, never its body', () => {
    const prompt = promptWithSkills('You are a test bot.', [one, two]);
    expect(prompt).toContain('- one: When one.');
    expect(prompt).toContain('- two: When two.');
    expect(prompt).toContain('skills-open');
    expect(prompt).not.toContain('body');
    expect(promptWithSkills('You are a test bot.', [])).toBe('You are a test bot.');
    expect(skillsPrompt([])).toBe('');
  });
});
