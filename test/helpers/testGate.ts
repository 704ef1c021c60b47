/**
 * The one gate (`server/gate.ts`) over a test's database, for tests that call outside apps through
 * the executor: live (an app with a credential may be called), every bot held to the default
 * windows, no site windows. A test about the gate itself builds its own.
 */
import { DEFAULT_LIMITS } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { createGate } from '../../server/gate';
import type { Gate, GateDeps } from '../../server/gate';
import { databaseLedger } from '../../server/ledger';

export function testGate(db: Database, more: Partial<Omit<GateDeps, 'ledger'>> = {}): Gate {
  return createGate({ ledger: databaseLedger(db, more.site === undefined ? {} : { site: more.site }), live: true, limitsOf: () => DEFAULT_LIMITS, clock: Date.now, ...more });
}
