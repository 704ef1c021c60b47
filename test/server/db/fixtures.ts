/**
 * Databases for the storage tests: PGlite in memory (fast, one per suite), and a real `pg` client
 * over the Postgres wire protocol, served from an in-memory PGlite by pglite-socket.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Database } from '../../../server/db/database';
import { openTestDatabase } from '../../helpers/testDatabase';

export function openMemoryDatabase(): Promise<Database> {
  return openTestDatabase();
}

export interface SocketPostgres {
  /** A `DATABASE_URL` for the served PGlite. */
  url: string;
  stop(): Promise<void>;
}

/** Serves a fresh in-memory PGlite (with pgvector) on 127.0.0.1 at a port the system picks. */
export async function startSocketPostgres(): Promise<SocketPostgres> {
  const db = await PGlite.create({ dataDir: 'memory://', extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 64 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

const WIDTH = 384;

/** The unit vector along one axis. */
export function axis(i: number): Float32Array {
  const v = new Float32Array(WIDTH);
  v[i] = 1;
  return v;
}

/** The unit vector between two axes at `angle` radians from the first: cosine distance 1 − cos(angle) from it. */
export function towards(from: number, to: number, angle: number): Float32Array {
  const v = new Float32Array(WIDTH);
  v[from] = Math.cos(angle);
  v[to] = Math.sin(angle);
  return v;
}

/** Tells this run's people from an earlier run's, on a real Postgres that outlives the tests. */
const RUN = Date.now().toString(36);
let counter = 0;
/** A person nobody else in the run is, so tests sharing a database cannot see each other's rows. */
export function somebody(name = 'person'): string {
  counter += 1;
  return `${name}-${RUN}-${counter}`;
}

/**
 * Generous time limits, in milliseconds: opening a PGlite runs initdb in WebAssembly, a few seconds
 * alone and several times that on a busy machine.
 */
export const OPENING_MS = 120_000;
export const DB_TEST_MS = 60_000;
