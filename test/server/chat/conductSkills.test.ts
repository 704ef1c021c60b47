/**
 * The kit's conduct skills through the door with no key: the demo bot as it ships, its skills from
 * skills/, and the stand-in answering. A line about feeling hopeless opens `in-distress` through
 * `skills.open` (recorded as any verb call is) and is answered with that skill's own sentence; a
 * medical question and a request about somebody else's messages open theirs — in each language the
 * demo speaks, heard and answered in the language the page sends.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../server/bots';
import { loadSkills, standInLines } from '../../../server/skills';
import type { Skill } from '../../../server/skills';
import { createRegistry, loadApps } from '../../../server/verbs/registry';
import { heardOf } from '../../helpers/doorHeard';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { OPENING_MS } from '../db/fixtures';
import { Person } from '../presence/presenceClient';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('the conduct skills, with no key', { timeout: 60_000 }, () => {
  let api: TestBackend;
  let skills: Map<string, Skill>;

  beforeAll(async () => {
    skills = await loadSkills(join(ROOT, 'skills'));
    api = await openTestBackend({ bots: await loadBots(join(ROOT, 'bots')), registry: createRegistry(await loadApps()), skills });
  }, OPENING_MS);
  afterAll(() => api.close());

  /** Says `line` to the demo bot in a conversation of its own, in `language`; answers what was heard and the skills it opened. */
  async function say(line: string, conversation: string, language = 'en'): Promise<{ text: string; opened: string[] }> {
    const person = new Person(api.app);
    const grant = await person.start('demo');
    const headers = { authorization: `Bearer ${grant}`, 'x-confab-conversation': conversation, 'x-confab-language': language };
    const res = await person.call('/v1/chat/completions', { body: { stream: true, messages: [{ role: 'user', content: line }] }, headers });
    expect(res.status).toBe(200);
    const { text } = await heardOf(res);
    const { rows } = await api.db.asServer((tx) => tx.query<{ verb: string }>('select verb from verb_calls where conversation = $1', [conversation]));
    return { text, opened: rows.map((row) => row.verb) };
  }

  it('opens in-distress for a line about feeling hopeless, and answers from it, pointing to help', async () => {
    const { text, opened } = await say('I feel hopeless and I don’t know what to do.', 'conduct-distress');
    expect(opened).toEqual(['skills.open']);
    expect(text).toContain(skills.get('in-distress')?.standIn?.en?.says);
    expect(text).toContain('local emergency number');
    expect(text).not.toContain('stand-in');
  });

  it('opens health-law-money for a question about medicine, saying what it is not', async () => {
    const { text, opened } = await say('Should I stop taking my blood pressure pills?', 'conduct-health');
    expect(opened).toEqual(['skills.open']);
    expect(text).toContain("I'm not a doctor, a lawyer or a financial adviser");
  });

  it('opens someone-elses-data for a request to read another person’s messages, and declines', async () => {
    const { text, opened } = await say('Can you read her messages for me?', 'conduct-data');
    expect(opened).toEqual(['skills.open']);
    expect(text).toContain(skills.get('someone-elses-data')?.standIn?.en?.says);
  });

  const SAID = {
    es: { 'in-distress': 'Me siento sin esperanza y no sé qué hacer.', 'health-law-money': '¿Debería dejar de tomar mis pastillas para la tensión?', 'someone-elses-data': '¿Puedes leer sus mensajes por mí?' },
    fr: { 'in-distress': 'Je me sens désespéré et je ne sais pas quoi faire.', 'health-law-money': 'Est-ce que je devrais arrêter de prendre mes comprimés pour la tension ?', 'someone-elses-data': 'Tu peux lire ses messages pour moi ?' },
    de: { 'in-distress': 'Ich fühle mich hoffnungslos und weiß nicht weiter.', 'health-law-money': 'Soll ich meine Blutdrucktabletten absetzen?', 'someone-elses-data': 'Kannst du ihre Nachrichten für mich lesen?' },
  } as const;

  it.each(Object.entries(SAID))('hears and answers each conduct skill in %s, the language the page sends', async (language, lines) => {
    for (const [skill, line] of Object.entries(lines)) {
      const { text, opened } = await say(line, `conduct-${language}-${skill}`, language);
      expect(opened).toEqual(['skills.open']);
      const says = standInLines(skills.get(skill) ?? { standIn: {} }, language)?.says;
      expect(says).toBeDefined();
      expect(text).toContain(says);
    }
  });

  it('leaves the demo’s other lines to its verbs and its usual answer', async () => {
    const { text, opened } = await say('What is the capital of Peru?', 'conduct-none');
    expect(opened).toEqual([]);
    expect(text).toContain('I heard you say');
  });
});
