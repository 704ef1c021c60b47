/** What every statement runs on: a transaction, as the server or as a person (`database.ts`), or a test's stand-in. */
export interface Queryable {
  /**
   * One statement with `$1…` parameters; values are never interpolated into the SQL. `R` is the row
   * shape the caller selected, taken on trust as with `pg` itself — the driver cannot check it.
   */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- see above
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}
