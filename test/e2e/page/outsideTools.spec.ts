/**
 * (24) A tool from outside, through the page: Tinker (test/e2e/bots/tinker.md) names the app
 * `everything`, one file (test/e2e/outside/everything.md) naming a real MCP server nobody here wrote
 * (`@modelcontextprotocol/server-everything`), which the spec's own server starts over stdio. The
 * person says the app file's example in their own words; the stand-in recognises it, the one
 * executor calls the server, and its answer is what the page says and shows.
 */
import { resolve } from 'node:path';
import { closeOutsideApps, loadOutsideApps } from '../../../server/outside/loadOutside';
import { mcpApp } from '../../../server/outside/mcpApp';
import { openApiApp } from '../../../server/outside/openApiApp';
import type { App } from '../../../server/verbs/verb';
import type { Listening } from '../../server/chat/localServers';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, said, startListening, test, threadsInDb, turnBack } from './fixtures';
import { startOwnServer } from './ownServer';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const APPS_DIR = resolve(import.meta.dirname, '..', 'outside');

let outside: App[];
let server: Listening;

test.beforeAll(async () => {
  outside = await loadOutsideApps(APPS_DIR, { env: process.env, appsDir: APPS_DIR, log: () => undefined }, { mcp: mcpApp, openapi: openApiApp });
  server = await startOwnServer({ extraApps: outside });
});

test.afterAll(async () => {
  await server.close();
  await closeOutsideApps(outside);
});

test('(24) says what an outside MCP server answered, asked in a phrasing from its app file', async ({ page, speech }) => {
  await openVoice(page, 'tinker', server.url);
  await startListening(page);
  await speech.listening();
  await speech.final('Echo good morning.');
  await expect(said(page, 'assistant').last()).toContainText('Echo: good morning', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);

  // The verbs listing says where it came from: an outside app, acting with the site's credentials.
  const verbs = (await (await page.request.get(`${server.url}/api/bots/tinker/verbs`)).json()) as { inScope: { verb: string; site?: boolean }[]; outside: { app: string; up: boolean }[] };
  expect(verbs.inScope).toEqual(expect.arrayContaining([expect.objectContaining({ verb: 'everything.echo', site: true })]));
  expect(verbs.outside).toEqual([expect.objectContaining({ app: 'everything', up: true })]);

  const [thread] = await threadsInDb(page.request, 'tinker', server.url);
  await expect.poll(async () => (await linesInDb(page.request, thread?.id ?? '', server.url)).map((l) => l.who)).toEqual(['person', 'assistant']);
});
