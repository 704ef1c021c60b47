/** What the table modules share in reading rows and writing parameters. */
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

/**
 * A timestamp column as ms since the epoch; null stays null. Drivers give a `Date`, or the text of
 * one where a column comes through a cast or JSON.
 */
export function msOf(value: Date | string): number;
export function msOf(value: Date | string | null): number | null;
export function msOf(value: Date | string | null): number | null {
  return value === null ? null : new Date(value).getTime();
}

/** ms since the epoch as a timestamp parameter (ISO 8601, UTC). */
export function iso(atMs: number): string {
  return new Date(atMs).toISOString();
}

/**
 * A `json`/`jsonb` column's value: drivers parse it, but one handed over as text is parsed here (so
 * a column read through this never holds a bare JSON string).
 */
export function jsonOf(value: unknown): unknown {
  return typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
}
