import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readMdFolder, unreadable } from '../../server/mdFolder';
import type { CannotRead } from '../../server/mdFolder';

class Unread extends Error {
  constructor(
    readonly path: string,
    readonly what: 'folder' | 'file',
  ) {
    super(`${path}: ${what}`);
  }
}

const cannotRead: CannotRead = (path, what) => new Unread(path, what);

describe('a folder of markdown files', () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true });
  });

  async function folderWith(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'confab-md-'));
    made.push(dir);
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return dir;
  }

  it('reads every .md file in name order, README, other files and folders aside', async () => {
    const dir = await folderWith({ 'b.md': 'bee', 'a.md': 'ay', 'README.md': '# about', 'Readme.md': '# about', 'notes.txt': 'no' });
    await mkdir(join(dir, 'c.md'));
    expect(readMdFolder(dir, cannotRead)).toEqual([
      { name: 'a.md', path: join(dir, 'a.md'), text: 'ay' },
      { name: 'b.md', path: join(dir, 'b.md'), text: 'bee' },
    ]);
  });

  it('reads a link to a file as the file, as a mounted config folder has them', async () => {
    const elsewhere = await folderWith({ 'real.md': 'linked' });
    const dir = await folderWith({});
    await symlink(join(elsewhere, 'real.md'), join(dir, 'en.md'));
    expect(readMdFolder(dir, cannotRead)).toEqual([{ name: 'en.md', path: join(dir, 'en.md'), text: 'linked' }]);
  });

  it('names the folder when it cannot be listed', () => {
    const missing = join(tmpdir(), 'confab-md-no-such-folder');
    expect(() => readMdFolder(missing, cannotRead)).toThrow(new Unread(missing, 'folder'));
  });

  it('names the file that cannot be read, with the reason', async () => {
    const dir = await folderWith({ 'a.md': 'ay' });
    await symlink(join(dir, 'gone.md'), join(dir, 'b.md'));
    expect(() => readMdFolder(dir, cannotRead)).toThrow(new Unread(join(dir, 'b.md'), 'file'));
    expect(unreadable(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe('cannot be read (ENOENT).');
  });
});
