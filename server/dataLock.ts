/**
 * One process at a time over an embedded database: PGlite is a single session in the process that
 * opened it, so a second process on the same folder (a second server, `npm run admin` beside a
 * running server) would corrupt it. Whoever opens it first keeps `<dataDir>/pglite.pid`; another
 * is refused with a sentence, and a file left by a process that died is taken over.
 */
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_FILE = 'pglite.pid';

export class DataFolderBusy extends Error {
  override readonly name = 'DataFolderBusy';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`A Confab server (process ${String(pid)}) holds the database in ${dataDir}; stop it first, or use DATABASE_URL so that several processes can share one Postgres.`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the folder for this process; answers how to let it go. Throws `DataFolderBusy` when a live process holds it. */
export async function lockDataFolder(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, LOCK_FILE);
  const mine = String(process.pid);
  await mkdir(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, `${mine}\n`, { flag: 'wx' });
      return async () => {
        const held = await readFile(file, 'utf8').catch(() => '');
        if (held.trim() === mine) await unlink(file).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DataFolderBusy(dataDir, pid);
      // Left by a process that is gone (or by this one): taken over.
      await unlink(file).catch(() => undefined);
    }
  }
  throw new DataFolderBusy(dataDir, 0);
}
