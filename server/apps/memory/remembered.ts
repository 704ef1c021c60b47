/**
 * What `memory.remember` and `memory.forget` ask of the `memories` table, in the person's own
 * transaction. A person may not insert into `memories` (migration 001); `confab_remember`
 * (migration 004) is the one door, and it writes the transaction's person, never one given here.
 * Forgetting goes through `forgetMemory`, which keeps the digest in `forgotten`.
 */
import type { Queryable } from '../../db/queryable';
import { forgetWords, mentions } from '../../db/forgotten';
import { MEMORY_WIDTH, forgetMemory, keepForgottenInTurn } from '../../db/memories';
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

export { forgetWords } from '../../db/forgotten';

/**
 * The ids of the person's memories for `bot` that mention `about`'s words, whole and in order, in any
 * case ("my sister" is in "My sister's birthday is in May", "the" is not in "these"). The statement
 * narrows to memories holding each word's ASCII pieces somewhere, in any case (ILIKE folds ASCII
 * whatever the database's locale; other letters it may not, so they are left to the words); the
 * words decide. `about` must hold a word (`forgetWords`): the caller refuses the person's words
 * without one, in their language, since with none every memory would match.
 */
export async function memoriesAbout(tx: Queryable, filter: { bot: string; about: string }): Promise<string[]> {
  const words = forgetWords(filter.about);
  if (words.length === 0) throw new RangeError(`memoriesAbout was given "${filter.about}", which holds no word; check it with forgetWords first.`);
  // ASCII letters and digits only (no % or _), so each piece is a LIKE pattern as it stands.
  const pieces = words.flatMap((word) => word.split("'")).filter((piece) => /^[a-z0-9]+$/.test(piece)).map((piece) => `%${piece}%`);
  const { rows } = await tx.query<{ id: string; text: string }>('select id, text from memories where bot = $1 and text ilike all ($2::text[])', [filter.bot, pieces]);
  return rows.filter((row) => mentions(row.text, words)).map((row) => row.id);
}

/** Forgets the person's memories for `bot` that mention `about` (`memoriesAbout`); answers how many. */
export async function forgetAbout(tx: Queryable, filter: { bot: string; about: string }): Promise<number> {
  let forgotten = 0;
  for (const id of await memoriesAbout(tx, filter)) if (await forgetMemory(tx, id, filter.about)) forgotten += 1;
  return forgotten;
}

/**
 * Forgets the memories `found` of the person's (each by the words it mentions, `about`), and with
 * them what was said that mentions them or those words; answers how many went. Each is counted
 * against `turn`, when the call is part of one.
 */
export async function forgetMemories(tx: Queryable, forget: { found: readonly { id: string; about: string }[]; person: string; turn: string | undefined; nowMs: number }): Promise<number> {
  let forgotten = 0;
  for (const { id, about } of forget.found) {
    if (!(await forgetMemory(tx, id, about))) continue;
    forgotten += 1;
    if (forget.turn !== undefined) await keepForgottenInTurn(tx, { person: forget.person, turn: forget.turn, memory: id, nowMs: forget.nowMs });
  }
  return forgotten;
}
