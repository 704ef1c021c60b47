/**
 * Who this server instance is across restarts: an id kept in its data folder (`<dataDir>/instance`),
 * made the first time. Its worker names its leases by it, so a restarted process knows which runs
 * its previous process held and takes them back at once (`takeBackLeases`). Two servers must not
 * share a data folder (PGlite refuses it anyway); each instance over one Postgres has its own.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file in the data folder that keeps the id. */
const INSTANCE_FILE = 'instance';

const INSTANCE_ID = /^[A-Za-z0-9-]{8,64}$/;

class InstanceIdError extends Error {
  override readonly name = 'InstanceIdError';
}

/** The id kept in `dataDir`, made (and kept) when there is none yet. */
export async function instanceId(dataDir: string): Promise<string> {
  const file = join(dataDir, INSTANCE_FILE);
  const kept = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (kept !== undefined) {
    const id = kept.trim();
    if (!INSTANCE_ID.test(id)) throw new InstanceIdError(`${file} does not hold an instance id (8 to 64 letters, digits and dashes); delete it and a new one is made at the next start.`);
    return id;
  }
  await mkdir(dataDir, { recursive: true });
  const made = randomUUID();
  try {
    await writeFile(file, `${made}\n`, { flag: 'wx' });
    return made;
  } catch (error) {
    // Another process made it first: that one is the instance's.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return instanceId(dataDir);
    throw error;
  }
}
