/**
 * Skills: what a bot knows, as against what it can do. A skill is a file, `skills/<name>.md`: YAML
 * front matter with a one-line `description` — when to use it, which is all the model sees until it
 * opens the skill — optionally the `verbs` it brings, and a body of instructions. Only the
 * description goes into the prompt; the body is behind the always-offered verb `skills.open`
 * (`server/apps/skills/`), and the verbs a skill brings are offered only once it has been opened in
 * the conversation. So a bot with twenty skills carries twenty lines, not twenty manuals.
 *
 * A skill may also say how the scripted stand-in (no model bought) uses it, in each language it
 * speaks: the words in a person's line that open it (`standIn.<lang>.hears`), and the one sentence
 * it says once it has (`standIn.<lang>.says`), since the stand-in has no model to follow the
 * instructions. So the kit's conduct skills — a person in distress, a medical, legal or money
 * question, somebody else's data — are heard and answered with no key, in the person's language.
 *
 * Every file is read and checked when the server starts; one invalid file stops the start with a
 * `SkillFileError` naming the file, as an invalid bot file does.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseDocument } from 'yaml';
import { FRONT_MATTER } from './bots';
import { readMdFolder, unreadable } from './mdFolder';
import { toolNameOf } from './verbs/project';
import { LANGUAGE_TAG } from './words/turnWords';

/** The verb that opens a skill. */
export const OPEN_SKILL = 'skills.open';
/** Longest description, in characters: it is one line of every prompt. */
const DESCRIPTION_CHARS_MAX = 300;
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SKILL_KEYS = ['description', 'verbs', 'standIn'] as const;
const STAND_IN_KEYS = ['hears', 'says'] as const;

export interface Skill {
  /** The file name without `.md`. */
  name: string;
  /** When to use it, in one line: what the model reads to decide whether to open it. */
  description: string;
  /** The verbs (`<app>.<verb>`) it brings, offered once it has been opened. */
  verbs: readonly string[];
  /** The instructions, returned by `skills.open`. */
  body: string;
  /**
   * How the stand-in opens it and what it then says, by language (`en`, `es`…); unset: the stand-in
   * opens it only when asked to by name.
   */
  standIn?: Readonly<Record<string, SkillStandIn>>;
}

/** A skill as the stand-in uses it, in one language. */
interface SkillStandIn {
  /** Words or phrases, any of which in a person's line (as whole words) opens the skill. */
  hears: readonly string[];
  /** The one sentence the stand-in says once it has opened it, in place of reading the instructions out. */
  says: string;
}

/** A skill file the server cannot start with; names the file and says what is wrong. */
export class SkillFileError extends Error {
  override readonly name = 'SkillFileError';
  constructor(
    readonly file: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: ${detail}`, options);
  }
}

/** Every skill there is, by name, and which of them a bot may open. */
export interface SkillShelf {
  readonly skills: ReadonlyMap<string, Skill>;
  /** The skills a bot file names (`skills: [a, b]`), or all of them (`skills: all`). */
  of(bot: { skills: readonly string[] | 'all' }): Skill[];
}

export function skillShelf(skills: ReadonlyMap<string, Skill>): SkillShelf {
  return {
    skills,
    of: (bot) => (bot.skills === 'all' ? [...skills.values()] : bot.skills.flatMap((name) => skills.get(name) ?? [])),
  };
}

/**
 * Reads every `<name>.md` in `dir` (`readMdFolder`); a folder that is not there holds none. Rejects
 * on the first bad file. Read synchronously, at start, as the bots are.
 */
export function loadSkills(dir: string): Promise<Map<string, Skill>> {
  return Promise.resolve().then(() => {
    const skills = new Map<string, Skill>();
    if (!existsSync(dir)) return skills;
    for (const { path, text } of readMdFolder(dir, (path, _what, cause) => new SkillFileError(path, unreadable(cause), { cause }))) {
      const skill = parseSkillFile(path, text);
      skills.set(skill.name, skill);
    }
    return skills;
  });
}

/** Parses one skill file's text; the name is the file name without `.md`. */
export function parseSkillFile(file: string, text: string): Skill {
  const name = basename(file, '.md');
  if (!SKILL_NAME.test(name)) throw new SkillFileError(file, `"${name}" (the file name) is not a skill name: use lower-case letters, digits and single dashes (e.g. plan-the-day.md).`);
  const match = FRONT_MATTER.exec(text);
  if (match === null) throw new SkillFileError(file, 'has no front matter: start with a `---` line, then `description: …`, then a closing `---` line, then the instructions.');
  const document = parseDocument(match[1] ?? '', { uniqueKeys: true });
  const [yamlError] = document.errors;
  if (yamlError !== undefined) throw new SkillFileError(file, `front matter is not valid YAML: ${yamlError.message}`, { cause: yamlError });
  const fields: unknown = document.toJS() ?? {};
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new SkillFileError(file, `front matter must be a mapping of ${SKILL_KEYS.join(', ')}.`);
  const unknown = Object.keys(fields).find((key) => !(SKILL_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) throw new SkillFileError(file, `${unknown} is not a field of a skill file; the fields are ${SKILL_KEYS.join(', ')}.`);
  const { description, verbs, standIn } = fields as Record<string, unknown>;
  if (typeof description !== 'string' || description.trim() === '' || description.includes('\n') || description.trim().length > DESCRIPTION_CHARS_MAX) {
    throw new SkillFileError(file, `description must be one line of 1 to ${DESCRIPTION_CHARS_MAX} characters saying when to use the skill: it is all the bot sees until it opens it, so a skill without one would never be opened.`);
  }
  if (verbs !== undefined && (!Array.isArray(verbs) || verbs.some((verb) => typeof verb !== 'string' || verb.trim() === ''))) {
    throw new SkillFileError(file, 'verbs must be a list of verb names, e.g. [lists.read, reminders.list].');
  }
  const body = (match[2] ?? '').trim();
  if (body === '') throw new SkillFileError(file, 'has no instructions after the front matter; the body is what opening the skill returns.');
  return {
    name,
    description: description.trim(),
    verbs: [...new Set((verbs as string[] | undefined ?? []).map((verb) => verb.trim()))],
    body,
    ...(standIn === undefined ? {} : { standIn: readStandIn(file, standIn) }),
  };
}

/** A skill file's `standIn:` block, checked: a mapping of languages, each with what it hears and says. */
function readStandIn(file: string, value: unknown): Readonly<Record<string, SkillStandIn>> {
  const byLanguage = 'standIn is by language, each with hears and says, e.g. standIn: { en: { hears: [panic], says: Breathe with me. } }.';
  if (!isMapping(value) || Object.keys(value).length === 0) throw new SkillFileError(file, `standIn must be a mapping of languages; ${byLanguage}`);
  const lines: Record<string, SkillStandIn> = {};
  for (const [language, said] of Object.entries(value)) {
    if (!LANGUAGE_TAG.test(language)) throw new SkillFileError(file, `standIn.${language} is not a language; ${byLanguage}`);
    lines[language] = readLines(file, `standIn.${language}`, said);
  }
  return lines;
}

/** One language's `hears` and `says` in a skill file's `standIn:` block (`at` names it), checked. */
function readLines(file: string, at: string, value: unknown): SkillStandIn {
  const shape = `a mapping of ${STAND_IN_KEYS.join(' and ')}: the words in a person's line that open the skill, and the one line the stand-in then says.`;
  if (!isMapping(value)) throw new SkillFileError(file, `${at} must be ${shape}`);
  const unknown = Object.keys(value).find((key) => !(STAND_IN_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) throw new SkillFileError(file, `${at}.${unknown} is not a field of a language's stand-in lines; ${at} must be ${shape}`);
  const { hears, says } = value;
  if (!Array.isArray(hears) || hears.length === 0 || hears.some((words) => typeof words !== 'string' || words.trim() === '')) {
    throw new SkillFileError(file, `${at}.hears must be a list of words or phrases, e.g. [hopeless, "can't go on"].`);
  }
  if (typeof says !== 'string' || says.trim() === '' || says.includes('\n')) throw new SkillFileError(file, `${at}.says must be one line: what the stand-in says once it has opened the skill.`);
  return { hears: (hears as string[]).map((words) => words.trim()), says: says.trim() };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What the stand-in hears and says of `skill` in `language` (or its base language: `es` for
 * `es-MX`); undefined in a language the skill has no lines in, so a skill is never heard or answered
 * in a language the person did not choose.
 */
export function standInLines(skill: Pick<Skill, 'standIn'>, language: string): SkillStandIn | undefined {
  return skill.standIn?.[language] ?? skill.standIn?.[language.split('-')[0] ?? ''];
}

/** Refuses a skill that brings a verb no app has: it would silently never be offered. */
export function checkSkillVerbs(skills: ReadonlyMap<string, Skill>, verbs: readonly string[], dir: string): void {
  for (const skill of skills.values()) {
    const unknown = skill.verbs.find((verb) => verb === OPEN_SKILL || !verbs.includes(verb));
    if (unknown !== undefined) throw new SkillFileError(join(dir, `${skill.name}.md`), `verbs names "${unknown}", which is not a verb any app in server/apps/ has.`);
  }
}

/**
 * What the prompt carries of a bot's skills: a line each, name and description, after the bot's
 * own prompt. Empty for a bot with none. Written for the model, which is told in English whatever
 * the person speaks, as the rest of its instructions are.
 */
export function skillsPrompt(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return `Skills you know. Each line says when to use one; before acting on one, open it with ${toolNameOf(OPEN_SKILL)} (its name) and follow what it says:\n${lines.join('\n')}`;
}

/** `prompt` with the skills' lines after it. */
export function promptWithSkills(prompt: string, skills: readonly Skill[]): string {
  const lines = skillsPrompt(skills);
  return lines === '' ? prompt : `${prompt}\n\n${lines}`;
}
