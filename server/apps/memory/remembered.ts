/**
 * What `memory.remember` and `memory.forget` ask of the `memories` table, in the person's own
 * transaction. A person may not insert into `memories` (migration 001); `confab_remember`
 * (migration 004) is the one door, and it writes the transaction's person, never one given here.
 * Forgetting goes through `forgetMemory`, which keeps the digest in `forgotten`.
 */
import type { Queryable } from '../../db/database';
import { MEMORY_WIDTH, forgetMemory } from '../../db/memories';
import { onlyRow } from '../../db/rows';

/**
 * Keeps `text` with its vector as a memory of the transaction's person for `bot`; answers its id, or
 * undefined for a zero vector, which could never be recalled.
 */
export async function rememberAsPerson(tx: Queryable, memory: { bot: string; text: string; embedder: string; embedding: Float32Array }): Promise<string | undefined> {
  if (memory.embedding.length !== MEMORY_WIDTH) {
    throw new RangeError(`An embedding is ${memory.embedding.length} wide; memories hold ${MEMORY_WIDTH}-wide vectors.`);
  }
  if (memory.embedding.some((value) => !Number.isFinite(value))) throw new RangeError('An embedding holds a value that is not a finite number.');
  if (memory.embedding.every((value) => value === 0)) return undefined;
  const { rows } = await tx.query<{ id: string }>('select confab_remember($1, $2, $3, $4::vector) as id', [
    memory.bot,
    memory.text,
    memory.embedder,
    `[${Array.from(memory.embedding).join(',')}]`,
  ]);
  return onlyRow(rows, 'Remembering').id;
}

/** Forgets the person's memories for `bot` whose words contain `about` (any case); answers how many. */
export async function forgetAbout(tx: Queryable, filter: { bot: string; about: string }): Promise<number> {
  const { rows } = await tx.query<{ id: string }>('select id from memories where bot = $1 and strpos(lower(text), lower($2)) > 0', [filter.bot, filter.about]);
  let forgotten = 0;
  for (const { id } of rows) if (await forgetMemory(tx, id)) forgotten += 1;
  return forgotten;
}
