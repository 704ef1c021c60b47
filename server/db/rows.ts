/** Small helpers the table modules share. */
import { DatabaseError } from './errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an id can name a row at all. Ids arrive from URLs; one that is not a UUID names nothing,
 * and answering "not found" beats a Postgres error that quotes the value back.
 */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/** The row an `insert … returning` or a one-row `select` must give. */
export function onlyRow<R>(rows: R[], doing: string): R {
  const row = rows[0];
  if (row === undefined) throw new DatabaseError(`${doing} returned no row.`);
  return row;
}
