/**
 * What a skill costs the prompt: each shipped skill's line in the prompt (its name and description,
 * as `skillsPrompt` writes it) against its body, which stays behind `skills.open` until the model
 * opens it. Characters, not tokens: the same count the seed's refunds skill was measured in (159 in
 * the prompt, 1,756 behind the tool). `promptShare` is the line over the line and the body together:
 * how much of the skill every call carries. Target: each skill's line at most 300 characters (one
 * prompt line), and under a fifth of what it holds. `headerChars` is what a bot with any skills
 * carries once, whatever their number: the sentence that introduces the lines.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkills, skillsPrompt } from '../../server/skills';
import type { BenchResult, BenchTarget } from './run';

const SKILLS_DIR = fileURLToPath(new URL('../../skills', import.meta.url));

export const targets: readonly BenchTarget[] = [
  { figure: 'largestPromptChars', atMost: 300, what: 'the longest skill line any prompt carries, in characters' },
  { figure: 'largestPromptShare', atMost: 0.2, what: 'a skill’s prompt line over its line and its body together' },
];

export async function run(): Promise<BenchResult> {
  const skills = await loadSkills(join(SKILLS_DIR));
  const each = [...skills.values()].map((skill) => {
    const promptChars = `- ${skill.name}: ${skill.description}`.length;
    const bodyChars = skill.body.length;
    return { skill: skill.name, promptChars, bodyChars, promptShare: Math.round((promptChars / (promptChars + bodyChars)) * 1000) / 1000 };
  });
  return {
    bench: 'skills',
    skills: each,
    headerChars: skillsPrompt([...skills.values()]).length - each.reduce((sum, s) => sum + s.promptChars + 1, 0),
    largestPromptChars: Math.max(0, ...each.map((s) => s.promptChars)),
    largestPromptShare: Math.max(0, ...each.map((s) => s.promptShare)),
  };
}
