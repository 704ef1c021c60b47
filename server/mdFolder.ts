/**
 * Folders of markdown files read once at start: the bots (`bots/<slug>.md`), the skills
 * (`skills/<name>.md`) and the words (`words/<lang>.md`, an app's `words/`). Read synchronously:
 * this runs before the server listens, and the words must be there before anything can be said.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';

/** One file of a folder, as read. */
export interface MdFile {
  /** The file's name, `<stem>.md`. */
  name: string;
  /** `dir` joined with `name`: what every error about the file names. */
  path: string;
  text: string;
}

/**
 * The caller's own error for what could not be read: the folder itself (`what: 'folder'`, `path` the
 * folder), or one of its files. `cause` is the file system's error.
 */
export type CannotRead = (path: string, what: 'folder' | 'file', cause: unknown) => Error;

/**
 * Every `.md` file directly in `dir`, README.md aside, in name order, so the first bad file is the
 * same one on every machine. A link to a file counts (a mounted config folder is made of them); a
 * folder named `….md` does not.
 */
export function readMdFolder(dir: string, cannotRead: CannotRead): MdFile[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (cause) {
    throw cannotRead(dir, 'folder', cause);
  }
  const names = entries.map((entry) => entry.name).filter((name) => name.endsWith('.md') && name.toLowerCase() !== 'readme.md');
  const files: MdFile[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    try {
      if (statSync(path).isFile()) files.push({ name, path, text: readFileSync(path, 'utf8') });
    } catch (cause) {
      throw cannotRead(path, 'file', cause);
    }
  }
  return files;
}

/** The end of a sentence naming what could not be read: "cannot be read (EACCES)." */
export function unreadable(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return `cannot be read (${typeof code === 'string' ? code : String(cause)}).`;
}
