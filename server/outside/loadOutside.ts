/**
 * The outside apps in the apps folder: every `<app>.md` (README.md aside), read and opened once at
 * start — an MCP server connected (or, if it cannot be reached, left out with the reason and tried
 * again with backoff: `mcpApp.ts`), an OpenAPI spec read and checked (`openApiApp.ts`). A file that
 * is wrong refuses the start with a sentence naming it and the field; the apps are closed with the
 * server (`closeOutsideApps`), which stops the MCP servers Confab started.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { App } from '../verbs/verb';
import type { Lookup } from './address';
import type { KeptRisks } from './keptRisks';
import { AppFileError, parseAppFile } from './appFile';
import type { McpAppFile, OpenApiAppFile } from './appFile';

/** What an outside app is opened with. */
export interface OutsideDeps {
  /** The server's environment: where `env:NAME` values are read from. */
  env: Readonly<Record<string, string | undefined>>;
  /** The apps folder: a spec's path in an app file is relative to it. */
  appsDir: string;
  /** One JSON line per event (a server away, back, a retry): never an argument or a result. */
  log: (line: Record<string, unknown>) => void;
  /** Where HTTP goes (a spec read over https://, an API's calls); default: the global fetch. */
  fetch?: typeof fetch;
  /** How a host name becomes addresses, to refuse private ones (`address.ts`); default: the system's resolver. */
  lookup?: Lookup;
  /** The risk each MCP tool was first said to have, only ever raised (`keptRisks.ts`): the server keeps it in the database; default: kept for this process. */
  kept?: KeptRisks;
}

/** How each kind of app file is opened. */
export interface OutsideOpeners {
  mcp: (file: McpAppFile, deps: OutsideDeps) => Promise<App>;
  openapi: (file: OpenApiAppFile, deps: OutsideDeps) => Promise<App>;
}

/**
 * Opens every app file in `dir`, in name order; throws an `AppFileError` for the first that is
 * wrong. `shownAs` is how a sentence names the folder (`CONFAB_APPS_DIR`); unset, `server/apps`.
 */
export async function loadOutsideApps(dir: string, deps: OutsideDeps, openers: OutsideOpeners, shownAs?: string): Promise<App[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && entry.name.toLowerCase() !== 'readme.md')
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw new AppFileError(dir, 'folder', 'cannot be read.', { cause: error });
  }
  const apps: App[] = [];
  try {
    for (const name of names) {
      const file = parseAppFile(shownAs === undefined ? name : `${shownAs}/${name}`, await readFile(join(dir, name), 'utf8'));
      apps.push(file.kind === 'mcp' ? await openers.mcp(file, deps) : await openers.openapi(file, deps));
    }
  } catch (error) {
    // Whatever was opened before the bad file is let go: a refused start leaves no server running.
    await closeOutsideApps(apps);
    throw error;
  }
  return apps;
}

/** Closes every outside app among `apps` (the servers Confab started stop); never throws. */
export async function closeOutsideApps(apps: readonly App[]): Promise<void> {
  await Promise.allSettled(apps.flatMap((app) => (app.outside === undefined ? [] : [app.outside.close()])));
}
