/**
 * The storage layer's failures. Each keeps the driver's error as its `cause` for whoever debugs, but
 * its own message is safe to log: it never carries SQL parameters, so never a transcript or a key.
 */

/** Anything the database refused or failed to do; `code` is the SQLSTATE when the server sent one. */
export class DatabaseError extends Error {
  override readonly name: string = 'DatabaseError';
  readonly code: string | undefined;

  constructor(message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

/**
 * A write the person may not make: a row-level security policy or a missing privilege refused it
 * (SQLSTATE 42501), or it names a row that does not exist (23503). The two are one class on purpose —
 * "not yours" and "not there" must get the same answer, or the difference tells somebody what exists.
 */
export class RefusedError extends DatabaseError {
  override readonly name: string = 'RefusedError';
}

/** A migration that could not be applied, or one that changed after it was applied; the start stops. */
export class MigrationError extends DatabaseError {
  override readonly name: string = 'MigrationError';
}

const REFUSED = new Set(['42501', '23503']);

/**
 * A listener that hears nothing: a notification sent through the database's connection did not
 * reach a LISTEN on it, as happens through a transaction pooler.
 */
export class DeafListenError extends DatabaseError {
  override readonly name: string = 'DeafListenError';

  constructor(channel: string, waitedMs: number) {
    super(`A notification on ${channel} did not reach a LISTEN on it within ${String(waitedMs)} ms.`);
  }
}

/** Error classes whose server messages quote the offending value, which may be something somebody said. */
const QUOTES_VALUES = /^22/;

function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Wraps whatever a driver threw. PGlite copies a failed query's parameters onto its error; they are
 * removed before the error travels on as a cause, so logging the cause cannot leak them either.
 */
export function toDatabaseError(error: unknown, doing: string): DatabaseError {
  if (error instanceof DatabaseError) return error;
  if (typeof error === 'object' && error !== null && 'params' in error) {
    delete (error as { params?: unknown }).params;
  }
  const code = sqlState(error);
  const serverSaid = error instanceof Error ? error.message : String(error);
  const detail = code === undefined ? serverSaid : QUOTES_VALUES.test(code) ? `invalid value (SQLSTATE ${code})` : `${serverSaid} (SQLSTATE ${code})`;
  const message = `${doing} failed: ${detail}`;
  return code !== undefined && REFUSED.has(code) ? new RefusedError(message, { cause: error, code }) : new DatabaseError(message, { cause: error, code });
}
