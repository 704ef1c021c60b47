/**
 * The registry's checks, each refusal's sentence as a person fixing their app reads it; the
 * narrators a verb has; and apps found as folders.
 */
import { mkdir, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, DEADLINE_MAX_MS, appOf, createRegistry, loadApps } from '../../../server/verbs/registry';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import type { App, Narrator, Risk, Verb } from '../../../server/verbs/verb';
import { tally, testApps } from '../../helpers/testApps';

function verbWith(overrides: Partial<Verb> = {}): Verb {
  return defineVerb({
    name: 'shelf.put',
    description: 'Puts a thing on the shelf.',
    example: 'put the book on the shelf',
    input: z.object({ thing: z.string() }),
    output: z.object({ ok: z.boolean() }),
    risk: 'write',
    deadlineMs: 1000,
    run: () => Promise.resolve({ ok: true }),
    ...overrides,
  });
}

function shelf(verbs: readonly Verb[] = [verbWith()], narrators?: readonly Narrator[]): App {
  return defineApp({ name: 'shelf', description: 'A shelf.', verbs, ...(narrators === undefined ? {} : { narrators }) });
}

const said = (text: string): Narrator => ({ follows: 'shelf.put', narrate: () => Promise.resolve(text) });

function refusal(apps: readonly App[]): string {
  try {
    createRegistry(apps);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error('The registry took apps it should have refused.');
}

describe('createRegistry', () => {
  it('takes the test apps and finds each verb and app by name, in app then manifest order', () => {
    const registry = createRegistry(testApps);
    expect(registry.verbs.map((v) => v.name)).toEqual([
      'tally.add',
      'tally.count',
      'tally.wait',
      'tally.broken',
      'tally.huge',
      'tally.fail',
      'tally.clear',
      'chime.now',
      'chime.ring',
    ]);
    expect(registry.verb('tally.add')?.risk).toBe('write');
    expect(registry.verb('tally.nothing')).toBeUndefined();
    expect(registry.app('chime')?.verbs).toHaveLength(2);
    expect(registry.app('nobody')).toBeUndefined();
  });

  it('refuses an app whose name is not lower-case letters, digits and underscores', () => {
    for (const name of ['Shelf', '1shelf', 'shelf-2', '', 'a'.repeat(33)]) {
      expect(refusal([{ ...shelf([]), name }])).toBe(`App "${name}": its name must be lower-case letters, digits and underscores, starting with a letter.`);
    }
  });

  it('refuses two apps of the same name', () => {
    expect(refusal([shelf(), shelf([])])).toBe('Two apps are called "shelf"; rename one of them.');
  });

  it('refuses a verb whose name is malformed or carries another app’s prefix', () => {
    for (const name of ['shelf', 'shelf.', 'shelf.Put', 'shelf.put.away', 'shelf.put-away', 'shelf.1put', 'cupboard.put', `shelf.${'p'.repeat(33)}`]) {
      expect(refusal([shelf([verbWith({ name })])])).toBe(`App "shelf", verb "${name}": a verb is named "shelf.<verb>" in lower-case letters, digits and underscores.`);
    }
  });

  it('refuses a verb declared twice', () => {
    expect(refusal([shelf([verbWith(), verbWith()])])).toBe('App "shelf": the verb shelf.put is declared twice.');
  });

  it('refuses a verb with no description or no example phrase', () => {
    const message = 'App "shelf", verb "shelf.put": give it a description and an example phrase.';
    expect(refusal([shelf([verbWith({ description: '  ' })])])).toBe(message);
    expect(refusal([shelf([verbWith({ example: '' })])])).toBe(message);
  });

  it('refuses input or output schemas that are not Zod objects', () => {
    const message = 'App "shelf", verb "shelf.put": its input and output must be Zod objects (z.object).';
    expect(refusal([shelf([verbWith({ input: z.string() })])])).toBe(message);
    expect(refusal([shelf([verbWith({ output: z.array(z.string()) })])])).toBe(message);
    expect(refusal([shelf([verbWith({ input: { type: 'object' } as unknown as z.ZodType })])])).toBe(message);
  });

  it('refuses a schema that cannot be given to a model as JSON Schema', () => {
    const message = refusal([shelf([verbWith({ input: z.object({ when: z.date() }) })])]);
    expect(message).toBe('App "shelf", verb "shelf.put": its schemas cannot be given to a model as JSON Schema (Date cannot be represented in JSON Schema).');
  });

  it('refuses a risk it does not know', () => {
    expect(refusal([shelf([verbWith({ risk: 'dangerous' as Risk })])])).toBe('App "shelf", verb "shelf.put": risk must be one of read, write, destructive.');
  });

  it('refuses a deadline that is not above 0 and at most a minute', () => {
    for (const deadlineMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, DEADLINE_MAX_MS + 1]) {
      expect(refusal([shelf([verbWith({ deadlineMs })])])).toBe(`App "shelf", verb "shelf.put": deadlineMs must be above 0 and at most ${String(DEADLINE_MAX_MS)}.`);
    }
    expect(() => createRegistry([shelf([verbWith({ deadlineMs: DEADLINE_MAX_MS })])])).not.toThrow();
  });

  it('refuses confirmation on a read, and confirmation that does not say what it asks', () => {
    const message =
      'App "shelf", verb "shelf.put": a verb that asks for confirmation must change something (risk write or destructive) and say what it asks (ask).';
    expect(refusal([shelf([verbWith({ confirm: true, risk: 'read', ask: () => 'Look?' })])])).toBe(message);
    expect(refusal([shelf([verbWith({ confirm: true, risk: 'destructive' })])])).toBe(message);
    expect(() => createRegistry([shelf([verbWith({ confirm: true, risk: 'destructive', ask: () => 'Sure?' })])])).not.toThrow();
  });

  it('refuses a verb whose name, as an OpenAI function name, would be longer than 64 characters', () => {
    const app = defineApp({ name: 'a'.repeat(32), description: 'Long.', verbs: [verbWith({ name: `${'a'.repeat(32)}.${'b'.repeat(32)}` })] });
    expect(refusal([app])).toBe(`App "${app.name}", verb "${app.name}.${'b'.repeat(32)}": a verb's whole name is at most 64 characters.`);
    const fits = defineApp({ name: 'a'.repeat(32), description: 'Long.', verbs: [verbWith({ name: `${'a'.repeat(32)}.${'b'.repeat(31)}` })] });
    expect(() => createRegistry([fits])).not.toThrow();
  });

  it('refuses a narrator that follows neither one of its own verbs nor its app', () => {
    const refused = (follows: string) => refusal([shelf([verbWith()], [{ follows, narrate: () => Promise.resolve('Hm.') }])]);
    for (const follows of ['shelf.take', 'shelf', 'shelf.', '*', 'tally.add', 'tally.*', 'shelf.put.away']) {
      expect(refused(follows)).toBe(`App "shelf": a narrator follows "${follows}", which is neither one of its verbs nor "shelf.*".`);
    }
    // Another app's verb is refused even when that app is registered first.
    expect(refusal([tally, shelf([verbWith()], [{ follows: 'tally.add', narrate: () => Promise.resolve('Hm.') }])])).toMatch(/^App "shelf": a narrator follows "tally.add"/);
  });
});

describe('narratorsFor', () => {
  it('answers the exact and the app-wide narrators of a verb, in the order the app declares them', async () => {
    const registry = createRegistry([
      shelf(
        [verbWith(), verbWith({ name: 'shelf.take' })],
        [
          said('one'),
          { follows: 'shelf.*', narrate: () => Promise.resolve('two') },
          { follows: 'shelf.take', narrate: () => Promise.resolve('never for put') },
          said('three'),
        ],
      ),
    ]);
    const words = (verb: string) => Promise.all(registry.narratorsFor(verb).map((n) => n.narrate({ verb, input: {}, output: {} }, undefined as never)));
    expect(await words('shelf.put')).toEqual(['one', 'two', 'three']);
    expect(await words('shelf.take')).toEqual(['two', 'never for put']);
  });

  it('answers none for a verb of an app without narrators, or a name that is no verb', () => {
    const registry = createRegistry(testApps);
    expect(registry.narratorsFor('chime.now')).toEqual([]);
    expect(registry.narratorsFor('nobody.add')).toEqual([]);
    expect(registry.narratorsFor('tally')).toEqual([]);
    expect(registry.narratorsFor('')).toEqual([]);
  });

  it('knows a verb’s app by the part before the dot', () => {
    expect(appOf('tally.add')).toBe('tally');
    expect(appOf('tally')).toBe('');
  });
});

describe('loadApps', () => {
  const repoTest = fileURLToPath(new URL('../..', import.meta.url));
  let root: string;

  /** An app folder whose index is `source`, as `index.<ext>`. */
  async function appFolder(dir: string, folder: string, source: string, ext = 'ts'): Promise<void> {
    await mkdir(join(dir, folder), { recursive: true });
    await writeFile(join(dir, folder, `index.${ext}`), source);
  }

  const verbUrl = new URL('../../../server/verbs/verb.ts', import.meta.url).href;
  const appSource = (name: string, verb: string) => `
import { z } from 'zod';
import { defineApp, defineVerb } from '${verbUrl}';
export default defineApp({
  name: '${name}',
  description: 'Found in a folder.',
  verbs: [
    defineVerb({
      name: '${name}.${verb}',
      description: 'Does one thing.',
      example: '${verb} it',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      risk: 'read',
      deadlineMs: 100,
      run: () => Promise.resolve({ ok: true }),
    }),
  ],
});
`;

  beforeAll(async () => {
    // Inside the repository, so the apps' own `import 'zod'` resolves as a real app's does.
    await mkdir(join(repoTest, '.tmp'), { recursive: true });
    root = await mkdtemp(join(repoTest, '.tmp', 'apps-'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    // Only when empty: another test file may be using it.
    await rmdir(join(repoTest, '.tmp')).catch(() => undefined);
  });

  it('finds each folder with an index as an app, in folder-name order, passing over folders without one', async () => {
    const dir = join(root, 'good');
    await appFolder(dir, 'zither', appSource('zither', 'pluck'));
    await appFolder(dir, 'abacus', appSource('abacus', 'count'));
    await mkdir(join(dir, 'notes'), { recursive: true });
    await writeFile(join(dir, 'README.md'), 'Not an app.');
    const apps = await loadApps(dir);
    expect(apps.map((app) => app.name)).toEqual(['abacus', 'zither']);
    expect(createRegistry(apps).verbs.map((v) => v.name)).toEqual(['abacus.count', 'zither.pluck']);
  });

  it('finds an app whose index is JavaScript', async () => {
    const dir = join(root, 'js');
    await appFolder(dir, 'plain', "export default { name: 'plain', description: 'Plain.', verbs: [] };\n", 'js');
    expect((await loadApps(dir)).map((app) => app.name)).toEqual(['plain']);
  });

  it('refuses a folder whose app is called something else', async () => {
    const dir = join(root, 'misnamed');
    await appFolder(dir, 'abacus', appSource('slide_rule', 'count'));
    await expect(loadApps(dir)).rejects.toThrow(new AppError('App folder "abacus": the app inside is called "slide_rule"; name the folder after the app.'));
  });

  it('refuses a folder whose index exports no app', async () => {
    const dir = join(root, 'empty');
    await appFolder(dir, 'hollow', 'export const nothing = 1;\n');
    await expect(loadApps(dir)).rejects.toThrow(new AppError('App folder "hollow": index must export an app (defineApp) as its default.'));
  });

  it('says which apps folder it cannot read', async () => {
    const dir = join(root, 'missing');
    await expect(loadApps(dir)).rejects.toThrow(new AppError(`Cannot read the apps folder ${dir}.`));
  });
});
