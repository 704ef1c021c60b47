/**
 * The apps a server starts with: the shipped folder and a site's own (`CONFAB_APPS_DIR`), each of
 * app folders and one-file apps, a name found twice refused before anything is opened, and a bad
 * app file in the site's folder named as being there.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config';
import type { OutsideOpeners } from '../../../server/outside/loadOutside';
import { loadAppsFolders } from '../../../server/verbs/appsFolders';
import { AppError } from '../../../server/verbs/registry';
import type { App } from '../../../server/verbs/verb';

let root: string;

/** A folder app with no verbs, its index plain JavaScript. */
async function folderApp(dir: string, name: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'index.js'), `export default { name: '${name}', description: 'Found in a folder.', verbs: [] };\n`);
}

const APP_FILE = '---\nmcp: { command: x }\ntools: [echo]\n---\nEchoes.\n';

/** Openers that open nothing for real: each app file is an app of its name, and what was opened is counted. */
function countingOpeners(): OutsideOpeners & { opened: string[]; closed: string[] } {
  const opened: string[] = [];
  const closed: string[] = [];
  const open = (name: string): Promise<App> => {
    opened.push(name);
    return Promise.resolve({ name, description: 'Outside.', verbs: [], outside: { kind: 'mcp', file: `${name}.md`, status: () => ({ up: true }), close: () => Promise.resolve(void closed.push(name)) } });
  };
  return { opened, closed, mcp: (file) => open(file.name), openapi: (file) => open(file.name) };
}

const deps = { env: {}, log: () => undefined };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'confab-apps-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('CONFAB_APPS_DIR', () => {
  it('is a folder resolved from where the server starts, or none', () => {
    expect(readConfig({ CONFAB_APPS_DIR: 'site-apps' }, '/srv/confab').appsDir).toBe('/srv/confab/site-apps');
    expect(readConfig({ CONFAB_APPS_DIR: ' /etc/confab/apps ' }, '/srv/confab').appsDir).toBe('/etc/confab/apps');
    expect(readConfig({}, '/srv/confab').appsDir).toBeUndefined();
    expect(readConfig({ CONFAB_APPS_DIR: '' }, '/srv/confab').appsDir).toBeUndefined();
  });
});

describe('loadAppsFolders', () => {
  it('adds a site’s app folders and app files to the shipped ones, the app files opened from their own folder', async () => {
    const shipped = join(root, 'shipped');
    const site = join(root, 'site');
    await folderApp(shipped, 'abacus');
    await writeFile(join(shipped, 'README.md'), 'Not an app.');
    await folderApp(site, 'zither');
    await writeFile(join(site, 'echoes.md'), APP_FILE);
    const openers = countingOpeners();
    const found = await loadAppsFolders([{ dir: shipped }, { dir: site, shownAs: 'CONFAB_APPS_DIR' }], deps, openers);
    expect(found.all.map((app) => app.name)).toEqual(['abacus', 'zither', 'echoes']);
    expect(found.outside.map((app) => app.name)).toEqual(['echoes']);
  });

  it('refuses a name found in both folders, naming both places, before anything is opened', async () => {
    const shipped = join(root, 'clash-shipped');
    const site = join(root, 'clash-site');
    await folderApp(shipped, 'lists');
    await mkdir(site, { recursive: true });
    await writeFile(join(site, 'lists.md'), APP_FILE);
    const openers = countingOpeners();
    await expect(loadAppsFolders([{ dir: shipped }, { dir: site, shownAs: 'CONFAB_APPS_DIR' }], deps, openers)).rejects.toThrow(
      new AppError('Two apps are called "lists": server/apps/lists/ and CONFAB_APPS_DIR/lists.md; rename one of them.'),
    );
    expect(openers.opened).toEqual([]);
  });

  it('names a bad app file by the site’s folder, and closes what it had opened', async () => {
    const shipped = join(root, 'bad-shipped');
    const site = join(root, 'bad-site');
    await mkdir(shipped, { recursive: true });
    await writeFile(join(shipped, 'echoes.md'), APP_FILE);
    await mkdir(site, { recursive: true });
    await writeFile(join(site, 'broken.md'), 'No front matter.');
    const openers = countingOpeners();
    await expect(loadAppsFolders([{ dir: shipped }, { dir: site, shownAs: 'CONFAB_APPS_DIR' }], deps, openers)).rejects.toThrow(/^CONFAB_APPS_DIR\/broken\.md: front matter is missing/);
    expect(openers.closed).toEqual(['echoes']);
  });

  it('says which apps folder it cannot read', async () => {
    const missing = join(root, 'missing');
    await expect(loadAppsFolders([{ dir: missing, shownAs: 'CONFAB_APPS_DIR' }], deps, countingOpeners())).rejects.toThrow(new AppError(`Cannot read the apps folder ${missing} (CONFAB_APPS_DIR).`));
  });
});
