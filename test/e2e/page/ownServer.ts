/**
 * A Confab server a page spec starts for itself, for what the shared one (playwright.config.ts's
 * webServer, which other specs rely on as it is) must not have: a bot whose site voice speaks and a
 * voice endpoint that fails, or a live provider. The real server (test/e2e/helpers/confabServer.ts)
 * over the page tests' own bots.
 */
import { resolve } from 'node:path';
import { startConfabServer } from '../helpers/confabServer';
import type { ConfabServer, ConfabServerOptions } from '../helpers/confabServer';

/** The bots of the page's own tests: Sage as in bots/, and Studio, whose site voice speaks. */
export const TEST_BOTS_DIR = resolve(import.meta.dirname, '..', 'bots');

/** Starts the server over the page tests' bots (or `botsDir`); `close` stops it and its database. */
export function startOwnServer(options: ConfabServerOptions = {}): Promise<ConfabServer> {
  return startConfabServer({ botsDir: TEST_BOTS_DIR, ...options });
}
