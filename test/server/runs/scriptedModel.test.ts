/**
 * A run answered from its script (no model bought) says what its calls came to in the run's
 * language: an outside tool's result from its fields, a list joined as that language joins one, and
 * "Done." or the stand-in's own answer in its words.
 */
import { describe, expect, it } from 'vitest';
import { parseAppFile } from '../../../server/outside/appFile';
import { outsideVerb } from '../../../server/outside/outsideVerb';
import { scriptedModel } from '../../../server/runs/runModel';
import type { RunSpeech } from '../../../server/runs/runModel';
import type { Run, RunStep } from '../../../server/runs/types';
import { standInAnswer } from '../../../server/chat/standIn';
import { shippedWords } from '../../../server/words/loadWords';

const museum = outsideVerb(parseAppFile('museum.md', '---\nopenapi: { spec: a.json, server: "https://a.example" }\noperations: [findArt]\nexamples: { findArt: "find art by {artist}" }\n---\nArt.\n'), {
  tool: 'findArt',
  description: 'Finds works by an artist.',
  inputSchema: { type: 'object', properties: { artist: { type: 'string' } }, required: ['artist'] },
  risk: 'read',
  call: () => Promise.resolve({}),
});

const FOUND = ['Mona Lisa', 'Guernica', 'The Scream', 'Water Lilies', 'The Kiss'].map((title, id) => ({ id, title }));

const RUN = { id: 'run-1', asked: 'find art by anyone', script: [{ verb: museum.name, input: { artist: 'anyone' } }] } as unknown as Run;

/** The run after its one call: the model step that asked for it, and the tool step that answered `output`. */
function afterCall(output: unknown): RunStep[] {
  return [
    { seq: 1, body: { kind: 'model', model: 'confab-stand-in', text: '', toolCalls: [{ id: 'call_script_1', verb: museum.name, input: { artist: 'anyone' } }] }, writeKey: null, spentUsd: 0 },
    { seq: 2, body: { kind: 'tool', callId: 'call_script_1', verb: museum.name, input: { artist: 'anyone' }, outcome: { ok: true, output } }, writeKey: null, spentUsd: 0 },
  ];
}

const speech = (language: string): RunSpeech => ({ words: shippedWords().wordsIn(language), language });
const said = async (steps: readonly RunStep[], language?: string, run: Run = RUN) => (await scriptedModel.reply(run, steps, [museum], new AbortController().signal, language === undefined ? undefined : speech(language))).text;

describe('a scripted run’s answer', () => {
  it('says an outside tool’s list in the run’s language, joined as that language joins a list', async () => {
    const steps = afterCall({ status: 200, body: FOUND });
    expect(await said(steps, 'en')).toBe('museum found 5: Mona Lisa, Guernica, The Scream, and 2 more.');
    expect(await said(steps, 'es')).toBe('museum ha encontrado 5: Mona Lisa, Guernica, The Scream y 2 más.');
    expect(await said(steps, 'fr')).toBe('museum a trouvé 5 résultats : Mona Lisa, Guernica, The Scream et 2 autres.');
    expect(await said(steps, 'de')).toBe('museum hat 5 gefunden: Mona Lisa, Guernica, The Scream und 2 weitere.');
  });

  it('speaks the shipped English when it is given no speech', async () => {
    expect(await said(afterCall({ status: 200, body: FOUND.slice(0, 2) }))).toBe('museum found 2: Mona Lisa and Guernica.');
  });

  it('says Done. in the run’s language for a result it cannot word, and its own answer when nothing was called', async () => {
    const [asked] = afterCall({});
    const gone: RunStep = { seq: 2, body: { kind: 'tool', callId: 'call_script_1', verb: 'museum.gone', input: {}, outcome: { ok: true, output: {} } }, writeKey: null, spentUsd: 0 };
    expect(await said([asked as RunStep, gone], 'de')).toBe('Erledigt.');
    expect(await said([], 'fr', { ...RUN, script: [] })).toBe(standInAnswer('no-provider', RUN.asked, shippedWords().wordsIn('fr')));
  });
});
