/**
 * The one entry that reads the environment and listens. Everything else is `createApp` and
 * `createBackend`, built from what this file reads.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createApp } from './app';
import { createBackend } from './backend';
import { appWords } from './apps/appWords';
import { answerBrokenRequest } from './clientError';
import { readBackendConfig } from './backendConfig';
import { BotFileError, checkBotApps, checkBotsFitSite, checkBotSkills, loadBots } from './bots';
import { checkBotHears } from './botHears';
import { checkSkillVerbs, loadSkills, SkillFileError } from './skills';
import { defaultWordsDir, loadWords } from './words/loadWords';
import { WordsFileError } from './words/words';
import { ConfigError, readConfig } from './config';
import { openDatabase } from './db/database';
import { isLoopbackName } from './guard';
import { loadGrantSecret } from './grants';
import { readMcpLimits } from './mcp/callLimits';
import { McpProjectionError } from './mcp/tools';
import { registerEmbedder } from './db/memories';
import { chooseEmbedder } from './memory/chooseEmbedder';
import { widthOf } from './memory/embed';
import { reembedMemories } from './memory/reembed';
import { readPersonMode } from './person';
import { instanceId } from './runs/instance';
import { DataFolderBusy, lockDataFolder } from './dataLock';
import { AppFileError } from './outside/appFile';
import { keptRisksIn } from './outside/keptRisks';
import { closeOutsideApps } from './outside/loadOutside';
import { mcpApp } from './outside/mcpApp';
import { openApiApp } from './outside/openApiApp';
import { loadAppsFolders } from './verbs/appsFolders';
import type { AppsFolder } from './verbs/appsFolders';
import { AppError, createRegistry } from './verbs/registry';
import { outsideStatus } from './verbs/verbRoutes';

/** How long answers under way may run on after a stop signal, in ms (`CONFAB_STOP_GRACE_S`, default 10). */
function stopGraceMs(env: Record<string, string | undefined>): number {
  const given = env.CONFAB_STOP_GRACE_S?.trim();
  if (given === undefined || given === '') return 10_000;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 120) {
    throw new ConfigError(`CONFAB_STOP_GRACE_S is "${given}"; give the seconds answers may run on after a stop signal, from 0 to 120 (default 10).`);
  }
  return Math.round(seconds * 1000);
}

async function main(): Promise<void> {
  const env = process.env;
  const config = readConfig(env);
  const graceMs = stopGraceMs(env);
  const backend = readBackendConfig(env);
  const bots = await loadBots(backend.botsDir);
  checkBotsFitSite(bots, backend.siteLimits);
  checkBotHears(bots, Date.now());
  // The shipped apps are found beside this file: server/apps/ from source, build/server/apps/ when
  // compiled; a site's own (CONFAB_APPS_DIR) beside them. An app is a folder, or one file naming an
  // MCP server or an OpenAPI spec (server/outside/).
  const shippedApps = fileURLToPath(new URL('./apps', import.meta.url));
  const appsFolders: AppsFolder[] = [
    { dir: shippedApps },
    ...(config.appsDir === undefined ? [] : [{ dir: config.appsDir, shownAs: 'CONFAB_APPS_DIR' }]),
  ];
  const logLine = (line: object) => {
    console.error(JSON.stringify(line));
  };
  const migrationsDir = fileURLToPath(new URL('./db/migrations', import.meta.url));
  // PGlite is one process's: a second server or `npm run admin` on this folder is refused, not let corrupt it.
  const unlock = backend.databaseUrl ? undefined : await lockDataFolder(backend.dataDir);
  const db = await openDatabase(
    backend.databaseUrl ? { url: backend.databaseUrl, directUrl: backend.databaseDirectUrl, migrationsDir } : { dataDir: join(backend.dataDir, 'pglite'), migrationsDir },
  );
  // Each outside tool's risk as first seen is kept in the database for the whole site (every instance
  // over it), so a server cannot later claim a tool is safer. A refused start lets go of the database.
  const found = await loadAppsFolders(appsFolders, { env, log: logLine, kept: keptRisksIn(db) }, { mcp: mcpApp, openapi: openApiApp }).catch(async (error: unknown) => {
    await db.close();
    await unlock?.();
    throw error;
  });
  const outsideApps = found.outside;
  const registry = createRegistry(found.all);
  checkBotApps(bots, registry.apps.map((app) => app.name));
  // Beside bots/, at the project root: skills/<name>.md and words/<lang>.md; a site's own words
  // (only those it changes) in CONFAB_WORDS_DIR, and its skills in CONFAB_SKILLS_DIR instead.
  const skillsDir = resolve(env.CONFAB_SKILLS_DIR?.trim() || 'skills');
  const skills = await loadSkills(skillsDir);
  checkSkillVerbs(skills, registry.verbs.map((verb) => verb.name), skillsDir);
  checkBotSkills(bots, [...skills.keys()]);
  const siteWords = env.CONFAB_WORDS_DIR?.trim();
  const words = loadWords({ dir: defaultWordsDir(), ...(siteWords ? { siteDir: resolve(siteWords) } : {}) });
  // Over Postgres, unset, it is made once in the database: every instance signs with the same one.
  const grantSecret = await loadGrantSecret({ env, dataDir: backend.dataDir, ...(backend.databaseUrl ? { db } : {}) });
  const { embedder, status: embedderStatus } = await chooseEmbedder(backend.embedder, { dataDir: backend.dataDir, log: logLine });
  await db.asServer((tx) => registerEmbedder(tx, { name: embedder.name, dimensions: widthOf(embedder) }));
  // Memories another embedder made move to this one's space in the background.
  const reembedding = new AbortController();
  void reembedMemories(db, embedder, { log: logLine, signal: reembedding.signal }).catch((error: unknown) => {
    logLine({ event: 'memory.reembed.failed', error: error instanceof Error ? error.message : String(error) });
  });
  const api = createBackend({
    db,
    bots,
    grantSecret,
    tasksWords: appWords(join(shippedApps, 'tasks')),
    personMode: readPersonMode(env),
    providers: backend.providers,
    live: backend.live,
    prices: backend.prices,
    speech: backend.speech,
    embedder,
    registry,
    skills,
    words,
    upstreamIdleMs: backend.upstreamIdleMs,
    siteLimits: backend.siteLimits,
    answerTokens: backend.answerTokens,
    speechUsdPerMillionChars: backend.speechUsdPerMillionChars,
    backgroundShare: backend.backgroundShare,
    // Who this instance is across restarts (`.data/instance`), and the caps on work nobody waits for.
    runs: { instance: await instanceId(backend.dataDir), idleDays: backend.idleDays, siteSchedules: backend.siteSchedules },
    clock: Date.now,
    mcpLimits: readMcpLimits(env),
  });
  // Presence hears the other instances over the database (LISTEN/NOTIFY) before a page connects,
  // or says that it reads what they did every so often, since it cannot hear them.
  const hearing = await api.presence.start();
  if (hearing.by === 'polling') {
    logLine({
      event: 'presence.polling',
      everyMs: hearing.pollMs,
      why: `${hearing.why} DATABASE_URL looks like a transaction pooler: presence reads what the other instances did every ${String(hearing.pollMs)} ms. Set DATABASE_DIRECT_URL to a session connection to the same Postgres (Supabase: port 5432) to hear them at once.`,
    });
  }
  // Write keys are kept a day for a retry of their turn, then swept.
  api.keys.start();
  // Work that outlives a turn: this instance's worker and the schedules' clock.
  api.runs.start();
  const app = createApp({ config, api, embedder: embedderStatus, outside: () => outsideStatus(registry.apps) });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    // This machine opens it by name: passkeys take no address for a site (a page visit to 127.0.0.1
    // is sent to localhost). An interface of the network's is said as it is.
    const local = isLoopbackName(info.address) || info.address === '0.0.0.0' || info.address === '::';
    const host = local ? 'localhost' : info.address.includes(':') ? `[${info.address}]` : info.address;
    const live = backend.live && backend.providers.length > 0;
    console.error(
      JSON.stringify({
        event: 'server.listening',
        url: `http://${host}:${info.port}/`,
        bots: bots.size,
        answers: live ? backend.providers.map((p) => p.name) : 'stand-in (nothing is bought until AGENTS_LIVE=1)',
        database: backend.databaseUrl ? 'postgres' : 'pglite',
      }),
    );
  });
  server.on('clientError', answerBrokenRequest);
  // A graceful stop: accept nothing new, let answers under way finish for at most `graceMs`, cut
  // the rest (each says it was cut, and is settled), close the database, exit 0. A second signal
  // exits at once.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143);
    stopping = true;
    logLine({ event: 'server.stopping', signal, answersRunning: api.running.size });
    const closed = new Promise<void>((resolve) => server.close(() => { resolve(); }));
    reembedding.abort();
    void (async () => {
      const cut = await api.running.stop(graceMs);
      // Runs stop between steps; their leases lapse for another instance (or the next start) to carry on.
      await api.runs.stop();
      await api.mcpEndpoint.close();
      // Presence streams never end by themselves: they are ended, and each page reconnects elsewhere.
      await api.presence.close();
      await api.keys.close();
      // The MCP servers Confab started stop with it.
      await closeOutsideApps(outsideApps);
      // The answers' last bytes ([DONE]) go out before the connections are let go.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      if ('closeAllConnections' in server) server.closeAllConnections();
      await db.close();
      await unlock?.();
      logLine({ event: 'server.stopped', answersCut: cut });
      process.exit(0);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataFolderBusy || error instanceof BotFileError || error instanceof SkillFileError || error instanceof WordsFileError || error instanceof AppError || error instanceof AppFileError || error instanceof McpProjectionError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
});
