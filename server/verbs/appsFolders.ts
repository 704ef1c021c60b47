/**
 * The apps a server starts with, from every apps folder it is given: the shipped one (`server/apps/`,
 * or `build/server/apps/` compiled) and a site's own (`CONFAB_APPS_DIR`), each holding app folders
 * and one-file apps (`<app>.md`). An app's name is one app's: a name found twice refuses the start,
 * naming both places, before any app is loaded or any MCP server started.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { closeOutsideApps, loadOutsideApps } from '../outside/loadOutside';
import type { OutsideDeps, OutsideOpeners } from '../outside/loadOutside';
import { APP_ENTRIES, AppError, loadApps } from './registry';
import type { App } from './verb';

/** One folder of apps. */
export interface AppsFolder {
  dir: string;
  /** How a sentence names a site's folder (`CONFAB_APPS_DIR`); unset for the shipped one, named `server/apps`. */
  shownAs?: string;
}

/** The apps of every folder: `all` in folder order (app folders, then app files), `outside` the app files' (to close with the server). */
export interface FoundApps {
  all: App[];
  outside: App[];
}

/** Each app in `folder` by name, with where it is as a sentence names it (`server/apps/lists/`, `CONFAB_APPS_DIR/museum.md`). */
async function namesIn(folder: AppsFolder): Promise<[name: string, place: string][]> {
  let entries;
  try {
    entries = await readdir(folder.dir, { withFileTypes: true });
  } catch (error) {
    throw new AppError(`Cannot read the apps folder ${folder.dir}${folder.shownAs === undefined ? '' : ` (${folder.shownAs})`}.`, { cause: error });
  }
  const names: [string, string][] = [];
  for (const entry of entries) {
    const isFolderApp = entry.isDirectory() && APP_ENTRIES.some((name) => existsSync(join(folder.dir, entry.name, name)));
    const isFileApp = entry.isFile() && entry.name.endsWith('.md') && entry.name.toLowerCase() !== 'readme.md';
    if (!isFolderApp && !isFileApp) continue;
    const name = isFolderApp ? entry.name : entry.name.slice(0, -'.md'.length);
    names.push([name, `${folder.shownAs ?? 'server/apps'}/${entry.name}${isFolderApp ? '/' : ''}`]);
  }
  return names;
}

/**
 * The apps of `folders`, checked for a name found twice first; the app files opened with `deps`
 * (each folder its files' `appsDir`) and `openers`. A refused start leaves no MCP server running.
 */
export async function loadAppsFolders(folders: readonly AppsFolder[], deps: Omit<OutsideDeps, 'appsDir'>, openers: OutsideOpeners): Promise<FoundApps> {
  const seen = new Map<string, string>();
  for (const folder of folders) {
    for (const [name, place] of await namesIn(folder)) {
      const before = seen.get(name);
      if (before !== undefined) throw new AppError(`Two apps are called "${name}": ${before} and ${place}; rename one of them.`);
      seen.set(name, place);
    }
  }
  const folderApps: App[] = [];
  for (const folder of folders) folderApps.push(...(await loadApps(folder.dir)));
  const outside: App[] = [];
  try {
    for (const folder of folders) outside.push(...(await loadOutsideApps(folder.dir, { ...deps, appsDir: folder.dir }, openers, folder.shownAs)));
  } catch (error) {
    await closeOutsideApps(outside);
    throw error;
  }
  return { all: [...folderApps, ...outside], outside };
}
