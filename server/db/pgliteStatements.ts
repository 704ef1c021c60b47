/**
 * Statements prepared once per PGlite session. PGlite's own `query` makes six calls into its
 * WebAssembly for every statement (parse, describe the statement, bind, describe the portal,
 * execute, sync) and Postgres parses, analyses and plans the text each time, on the way to every
 * answer. Here each distinct SQL text is parsed once, under a name, and its parameter types learnt;
 * afterwards it is one call (bind, describe, execute, sync as a single batch) and Postgres plans it
 * from its plan cache (docs/performance.md has what that saves, from `npm run bench -- door`).
 *
 * What stays as it was: the values travel as bound parameters, serialised exactly as PGlite's
 * `query` serialises them (by the parameter's type), and the rows are parsed by PGlite's own parser.
 * Postgres keeps the statements correct itself: a plan is made again after a table it reads changes,
 * and a statement analysed under one role is analysed again when run under another, so row level
 * security holds for `asPerson` whoever ran the same text before. Named statements outlive
 * transactions, rolled back or not, and belong to the one session PGlite is.
 *
 * At most `capacity` are kept; the least recently used is closed when another is needed.
 */
import { parse, protocol } from '@electric-sql/pglite';
import type { PGlite } from '@electric-sql/pglite';
import { checkOption } from '../../common/options';

/** Distinct statements kept prepared: every statement Confab sends, many times over. */
const PREPARED_CAPACITY = 256;

interface Prepared {
  name: string;
  /** Each parameter's type, as Postgres inferred it at parse. */
  types: readonly number[];
}

export interface PgliteStatements {
  /**
   * Runs one statement inside the transaction in progress (PGlite's `transaction` holds the
   * session; this takes the same per-statement turn its `query` takes).
   */
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** How many statements are prepared now. */
  readonly size: number;
}

export function pgliteStatements(db: PGlite, capacity = PREPARED_CAPACITY): PgliteStatements {
  checkOption('pgliteStatements.capacity', capacity, { min: 1, whole: true });
  const { serialize } = protocol;
  /** By SQL text, least recently used first (a Map keeps insertion order; a hit is moved to the end). */
  const prepared = new Map<string, Prepared>();
  let named = 0;

  const send = async (parts: Uint8Array[]) => (await db.execProtocol(Buffer.concat(parts), { syncToFs: false })).messages;

  async function prepare(sql: string): Promise<Prepared> {
    const parts: Uint8Array[] = [];
    // The least recently used one is closed in the same call that parses its successor.
    if (prepared.size >= capacity) {
      const [oldestSql, oldest] = prepared.entries().next().value as [string, Prepared];
      prepared.delete(oldestSql);
      parts.push(serialize.close({ type: 'S', name: oldest.name }));
    }
    named += 1;
    const name = `confab_${named.toString(36)}`;
    parts.push(serialize.parse({ name, text: sql, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync());
    // A statement that does not parse throws here, and nothing is kept for it.
    const messages = await send(parts);
    const description = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
    const statement = { name, types: description?.dataTypeIDs ?? [] };
    prepared.set(sql, statement);
    return statement;
  }

  return {
    query(sql, params = []) {
      return db.runExclusive(async () => {
        let statement = prepared.get(sql);
        if (statement === undefined) statement = await prepare(sql);
        else {
          prepared.delete(sql);
          prepared.set(sql, statement);
        }
        const types = statement.types;
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serializer = db.serializers[types[i] ?? 0];
          if (serializer) return serializer(value);
          // A type PGlite has no serialiser for (an extension's, such as `vector`) takes its text form.
          if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
          throw new TypeError(`Parameter $${String(i + 1)} is of a type with no text form given; pass it as text.`);
        });
        const messages = await send([serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]);
        return { rows: parse.parseResults(messages, db.parsers)[0]?.rows ?? [] };
      });
    },
    get size() {
      return prepared.size;
    },
  };
}
