/**
 * The API assembled from its parts: who is asking, grants, the chat door with memory and the
 * ledger, the speak proxy, and the person's conversations — everything `createApp` mounts. Tests
 * build it the same way over an in-memory database and a local upstream.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { PENDING_ACTION_MS } from '../common/acting/protocol';
import { actionRoutes } from './actions';
import type { ApiDeps } from './app';
import type { Bot } from './bots';
import { chatDoor } from './chat/chatDoor';
import { lastQuestion } from './chat/chatRequest';
import { RunningAnswers } from './chat/runningAnswers';
import { turnKeyOf } from './chat/turnId';
import type { ActingTurn, DoorLogLine, TurnPlan } from './chat/doorTypes';
import { DOOR_DEFAULTS } from './chat/doorTypes';
import type { PriceTable } from './chat/prices';
import type { Provider } from './chat/upstream';
import { conversationRoutes } from './conversations';
import type { Database } from './db/database';
import { bearerGrant } from './grants';
import type { GrantClaims } from './grants';
import type { PersonLimits } from './db/limits';
import { databaseLedger, SPEND_HOLD_GRACE_MS } from './ledger';
import { createGate } from './gate';
import type { McpLimits } from './mcp/callLimits';
import { mcpEndpoint } from './mcp/endpoint';
import type { McpEndpoint, McpLogLine } from './mcp/endpoint';
import { mcpTokenRoutes } from './mcp/tokenRoutes';
import type { Embedder } from './memory/embed';
import { compactedContext, memoryContext, memoryWriter } from './memory/context';
import type { MemoryTurn } from './memory/context';
import { noticeRoutes } from './notices';
import { wakeRoutes } from './runs/wakes';
import { appWords } from './apps/appWords';
import type { AppWords } from './apps/appWords';
import { findPerson } from './people/people';
import { peopleRoutes } from './people/routes';
import { checkpoints } from './presence/checkpoints';
import { presence } from './presence/presence';
import { verbEvents } from './presence/verbEvents';
import type { Presence, PresenceOptions } from './presence/presence';
import type { PersonEnv, PersonMode } from './person';
import { speakProxy } from './speak';
import type { SpeakEndpoint } from './speak';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { openFirstAnswering } from './chat/fallover';
import { costUsd, priceOf } from './chat/prices';
import { providerOrder } from './chat/upstream';
import { streamedModel } from './runs/runModel';
import type { RunModel } from './runs/runModel';
import { runService } from './runs/runService';
import type { RunService, RunServiceDeps } from './runs/runService';
import { openAiTools } from './verbs/project';
import type { AppServices } from './verbs/verb';
import { createExecutor } from './verbs/executor';
import type { Executor, VerbLogLine } from './verbs/executor';
import { keySweep } from './verbs/keySweep';
import type { KeySweep } from './verbs/keySweep';
import { keepPending } from './verbs/pendingActions';
import { turnStepStore } from './db/turnSteps';
import { createRegistry } from './verbs/registry';
import type { Registry } from './verbs/registry';
import { recentAppsMatter, scopeOf } from './verbs/scope';
import { verbRoutes } from './verbs/verbRoutes';
import { yoursRoutes } from './yours/yoursRoutes';
import type { SkillsScope } from './verbs/verbRoutes';
import type { Caller } from './verbs/verb';
import { OPEN_SKILL, promptWithSkills, skillShelf } from './skills';
import type { Skill } from './skills';
import { digestOf } from './verbs/verbCalls';
import { shippedWords } from './words/loadWords';
import { pageWordsRoutes } from './words/pageWordsRoutes';
import type { WordBook } from './words/loadWords';
import { botWords, turnLanguage } from './words/turnWords';
import type { Words } from './words/words';

export interface BackendDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  grantSecret: Uint8Array;
  /**
   * The tasks app's words, which the bots' wakes say (`runs/wakes.ts`), from the shipped apps folder
   * the server found (`server/index.ts`); default that folder beside this file's source.
   */
  tasksWords?: AppWords;
  personMode: PersonMode;
  providers: readonly Provider[];
  live: boolean;
  prices: PriceTable;
  speech: SpeakEndpoint | undefined;
  embedder: Embedder;
  /** Longest a provider may go silent mid-answer, in ms; default the door's (20 s). */
  upstreamIdleMs?: number;
  /** The site's windows over everybody (`CONFAB_SITE_LIMITS`); unset: none. */
  siteLimits?: PersonLimits;
  /** The share of the site's windows background work may use (`CONFAB_BACKGROUND_SHARE`); default `BACKGROUND_SHARE_DEFAULT`. */
  backgroundShare?: number;
  /** Most tokens a provider may answer one call with; default the door's (4096). */
  answerTokens?: number;
  /** USD per million characters of the paid voice (`COPILOT_TTS_PRICE`); default the proxy's. */
  speechUsdPerMillionChars?: number;
  /** The apps found at start (`loadApps`); default: none, so bots only talk. */
  registry?: Registry;
  clock: () => number;
  fetch?: typeof fetch;
  /** Structured log lines (never transcripts, answers or keys). Default: JSON on stderr. */
  log?: (line: DoorLogLine) => void;
  /** The executor's log lines (never arguments or results). Default: JSON on stderr. */
  verbLog?: (line: VerbLogLine | { event: 'narrator.failed'; verb: string; error: string } | { event: 'keys.sweep-failed'; error: string }) => void;
  /** How often idempotency keys past their day are swept, in ms; default `KEY_SWEEP_EVERY_MS`. */
  keySweepMs?: number;
  /** Per-token MCP limits (`readMcpLimits`); default `MCP_LIMIT_DEFAULTS`. */
  mcpLimits?: Partial<McpLimits>;
  /** The MCP door's refusals (never a token). Default: JSON on stderr. */
  mcpLog?: (line: McpLogLine) => void;
  /** The skills there are (`loadSkills`); default: none. */
  skills?: ReadonlyMap<string, Skill>;
  /** What Confab says in its own name, by language (`loadWords`); default: the shipped words alone. */
  words?: WordBook;
  /** Presence's window, heartbeat and staleness over `PRESENCE_DEFAULTS`. */
  presence?: Partial<PresenceOptions>;
  /** The run worker's timings (tests shorten them), the instance's own id, and the caps on background work. */
  runs?: Pick<RunServiceDeps, 'leaseMs' | 'pollMs' | 'scheduleLookMs' | 'scriptedStepMs' | 'instance' | 'idleDays' | 'siteSchedules'>;
}

/** The API, and the executor every verb call goes through (for the MCP adapter). */
export interface Backend extends ApiDeps {
  executor: Executor;
  /** The answers streaming now: `running.stop(graceMs)` for a graceful stop. */
  running: RunningAnswers;
  /** MCP over Streamable HTTP (`/mcp`), its per-token limits, and its shutdown. */
  mcpEndpoint: McpEndpoint;
  /** The person's pages across tabs and devices: `start` listens for other instances, `close` ends the streams. */
  presence: Presence;
  /** The sweep of write keys past their day: `start` runs it every `keySweepMs`, `close` stops it. */
  keys: KeySweep;
  /** Work that outlives a turn: `start` runs the worker and the schedules' clock, `stop` stops between steps. */
  runs: RunService;
}

/** A run's model calls: the bot's providers in its order, with fall-over, its prompt first, its verbs as tools. */
function runModel(deps: BackendDeps): RunModel {
  return streamedModel({
    open: (messages, verbs, signal, run) => {
      const bot = deps.bots.get(run.bot);
      const system = bot === undefined || bot.prompt === '' ? [] : [{ role: 'system' as const, content: bot.prompt }];
      return openFirstAnswering(providerOrder(deps.providers, bot ?? {}), [...system, ...messages], {
        signal,
        fetch: deps.fetch ?? fetch,
        firstTokenMs: DOOR_DEFAULTS.firstTokenMs,
        answerTokens: deps.answerTokens ?? DOOR_DEFAULTS.answerTokens,
        ...(verbs.length === 0 ? {} : { tools: openAiTools(verbs) }),
        onFallover: (error) => {
          (deps.log ?? ((line: DoorLogLine) => { console.error(JSON.stringify(line)); }))({
            event: 'provider.fell-over',
            provider: error.provider,
            failure: error.failure,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.code === undefined ? {} : { code: error.code }),
          });
        },
      });
    },
    costOf: (model, usage) => costUsd(priceOf(deps.prices, model), usage),
    // The door's own wait for a silent provider (`CONFAB_UPSTREAM_IDLE_S`).
    idleMs: deps.upstreamIdleMs ?? DOOR_DEFAULTS.upstreamIdleMs,
  });
}


export function createBackend(deps: BackendDeps): Backend {
  const authorize = (c: Context) => bearerGrant(c, deps.grantSecret, { nowMs: deps.clock() });
  const shelf = skillShelf(deps.skills ?? new Map());
  /** Each bot as the door asks with it: its prompt followed by its skills' lines (never their bodies). */
  const asked = new WeakMap<Bot, Bot>();
  const botOf = (slug: string): Bot | undefined => {
    const bot = deps.bots.get(slug);
    if (bot === undefined) return undefined;
    let withSkills = asked.get(bot);
    if (withSkills === undefined) {
      withSkills = { ...bot, prompt: promptWithSkills(bot.prompt, shelf.of(bot)) };
      asked.set(bot, withSkills);
    }
    return withSkills;
  };
  const registry = deps.registry ?? createRegistry([]);
  const running = new RunningAnswers();
  const book = deps.words ?? shippedWords();
  /** What the bot called `slug` says in Confab's own name in `language` (null: its own); a bot not found, the shipped words. */
  const wordsForBot = (slug: string, language: string | null): Words => {
    const bot = deps.bots.get(slug);
    return bot === undefined ? book.wordsIn(language ?? 'en') : botWords(book, bot, language ?? bot.voice.language);
  };
  const pages = presence({ db: deps.db, bots: deps.bots, clock: deps.clock, ...(deps.presence ? { options: deps.presence } : {}) });
  // A write that finished away from the conversation is said by the active page.
  let written: ReturnType<typeof verbEvents> = () => undefined;
  // The `tasks` app's services are the run service's, made once the executor it uses exists.
  const services: AppServices = {
    embedder: deps.embedder,
    skills: (slug) => {
      const bot = deps.bots.get(slug);
      return bot === undefined ? [] : shelf.of(bot);
    },
  };
  // Every effect that spends or reaches outside — turns, run steps, schedules' firings,
  // sentences of the paid voice, outside calls — is admitted by this one gate, under the person's
  // windows, the site's and the background share.
  const ledger = databaseLedger(deps.db, deps.siteLimits === undefined ? {} : { site: deps.siteLimits });
  const gate = createGate({
    ledger,
    live: deps.live,
    ...(deps.siteLimits === undefined ? {} : { site: deps.siteLimits }),
    ...(deps.backgroundShare === undefined ? {} : { backgroundShare: deps.backgroundShare }),
    limitsOf: (slug) => deps.bots.get(slug)?.limits,
    clock: deps.clock,
  });
  const executor = createExecutor({
    gate,
    registry,
    db: deps.db,
    services,
    clock: deps.clock,
    ...(deps.verbLog ? { log: deps.verbLog } : {}),
    wordsFor: (caller) => {
      const bot = deps.bots.get(caller.bot);
      return bot === undefined ? book.wordsIn(caller.language ?? 'en') : botWords(book, bot, turnLanguage(bot, caller.language));
    },
    onWritten: (write) => {
      written(write);
    },
  });
  written = verbEvents({ narrate: (ran, caller) => executor.narrate(ran, caller), publish: (person, bot, events) => pages.publish(person, bot, events) });

  /** What one turn may do: its scope, and the loop's means of running calls and keeping them pending. */
  /** Per bot (its file, as loaded), whether the apps its conversations used lately could change its scope. */
  const recentAppsMatterOf = new WeakMap<Bot, boolean>();
  const recentAppsMatterFor = (bot: Bot): boolean => {
    let matter = recentAppsMatterOf.get(bot);
    if (matter === undefined) {
      matter = recentAppsMatter(registry, bot.apps);
      recentAppsMatterOf.set(bot, matter);
    }
    return matter;
  };
  /**
   * What a turn's skills change in its scope: the verbs of the skills opened in this conversation
   * (read off its recorded `skills.open` calls, so any instance knows), and as hidden the verbs its
   * other skills bring — and `skills.open` itself for a bot with no skills.
   */
  async function skillsOf(bot: Bot, caller: Caller, conversationKey: string | undefined): Promise<SkillsScope> {
    const skills = shelf.of(bot);
    if (skills.length === 0) return { hidden: new Set([OPEN_SKILL]), opened: [] };
    const brought = skills.flatMap((skill) => skill.verbs);
    const called = brought.length === 0 ? [] : await executor.inputsCalled(caller, conversationKey, OPEN_SKILL);
    const opened = skills.filter((skill) => called.includes(digestOf(OPEN_SKILL, { name: skill.name }))).flatMap((skill) => skill.verbs);
    return { hidden: new Set(brought.filter((verb) => !opened.includes(verb))), opened };
  }

  async function planTurn(turn: ActingTurn<GrantClaims, Bot>): Promise<TurnPlan | undefined> {
    const person = turn.grant.person;
    const turnKey = turnKeyOf({ person, bot: turn.grant.bot, conversationKey: turn.conversationKey, turn: turn.turnId });
    const caller = { person, bot: turn.grant.bot, via: 'model' as const, kind: turn.grant.kind, timeZone: turn.timeZone, language: turnLanguage(turn.bot, turn.language), turn: turnKey };
    // Not read when it could not change the scope: the bot already offers every app whole.
    const recentApps = recentAppsMatterFor(turn.bot) ? await executor.recentApps(caller, turn.conversationKey) : [];
    const skills = await skillsOf(turn.bot, caller, turn.conversationKey);
    const scope = scopeOf(registry, { botApps: turn.bot.apps, recentApps, ...skills, heard: lastQuestion(turn.messages) });
    if (scope.verbs.length === 0) return undefined;
    return {
      verbs: scope.verbs.map((s) => s.verb),
      skills: shelf.of(turn.bot),
      acting: {
        executor,
        scope: scope.names,
        hidden: skills.hidden,
        caller,
        conversationKey: turn.conversationKey,
        turnKey,
        steps: turnStepStore(deps.db, person, turnKey, deps.clock),
        maxModelCalls: turn.bot.limits.steps,
        words: turn.words,
        keepPending: async ({ verb, input }) => {
          // Asked and kept in one transaction: a question that counts the person's rows counts them as they are while it is pending.
          const pending = await deps.db.asPerson(person, async (tx) => {
            const question = await executor.question(tx, verb, input, caller, turn.words);
            return keepPending(tx, { person, bot: turn.grant.bot, verb, input, question, timeZone: turn.timeZone, conversationKey: turn.conversationKey ?? null, expiresAtMs: deps.clock() + PENDING_ACTION_MS, language: caller.language, turnKey });
          });
          return { id: pending.id, verb, question: pending.question, expiresAtMs: pending.expiresAtMs };
        },
      },
    };
  }

  const marks = checkpoints<GrantClaims, Bot>({ db: deps.db, clock: deps.clock });
  const context = compactedContext(memoryContext(deps.db, deps.embedder), (turn: MemoryTurn & { conversationKey: string | undefined }) =>
    // A bot that hears the question alone is given no checkpoint either.
    turn.memory === 'none' ? Promise.resolve(null) : marks.latest(turn.person, turn.bot, turn.conversationKey),
  );
  const remember = memoryWriter(deps.db, deps.embedder);
  const bought = deps.live && deps.providers.length > 0;
  const runs = runService({
    db: deps.db,
    executor,
    registry,
    bots: deps.bots,
    scripted: !bought,
    wordsForBot,
    ...(bought ? { model: runModel(deps) } : {}),
    gate,
    priced: (model) => priceOf(deps.prices, model) !== undefined,
    publish: (person, bot, events) => pages.publish(person, bot, events),
    owner: `${hostname()}-${String(process.pid)}-${randomUUID().slice(0, 8)}`,
    clock: deps.clock,
    ...deps.runs,
  });
  services.runs = runs.services;
  const door = chatDoor({
    authorize,
    botOf,
    providers: deps.providers,
    live: deps.live,
    prices: deps.prices,
    ledger: gate.doorLedger(),
    context: (turn) => context({ person: turn.grant.person, bot: turn.grant.bot, memory: turn.bot.memory, messages: turn.messages, conversationKey: turn.conversationKey }),
    acting: planTurn,
    wordsFor: (bot, language) => botWords(book, bot, turnLanguage(bot, language)),
    running,
    ...(deps.upstreamIdleMs === undefined ? {} : { upstreamIdleMs: deps.upstreamIdleMs }),
    ...(deps.answerTokens === undefined ? {} : { answerTokens: deps.answerTokens }),
    afterAnswer: async (turn) => {
      await Promise.all([remember({ person: turn.grant.person, bot: turn.grant.bot, memory: turn.bot.memory, question: turn.question }), marks.afterAnswer(turn)]);
    },
    clock: deps.clock,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(deps.log ? { log: deps.log } : {}),
  });
  // Whether the asking person owns the server and the name they were given, for a bot `for:` such people.
  const peopleRow = (person: string) => deps.db.readAsServer((reader) => findPerson(reader, person));
  const personal = new Hono<PersonEnv>();
  personal.route('/', pages.routes);
  personal.route('/', conversationRoutes({ db: deps.db, bots: deps.bots, publish: (person, bot, events) => pages.publish(person, bot, events) }));
  personal.route('/', actionRoutes({ db: deps.db, executor, clock: deps.clock, runs: runs.answers, bots: deps.bots, wordsFor: wordsForBot }));
  personal.route('/', verbRoutes({ bots: deps.bots, executor, db: deps.db, skillsScope: skillsOf }));
  personal.route('/', noticeRoutes({ db: deps.db, bots: deps.bots, clock: deps.clock }));
  personal.route('/', wakeRoutes({ db: deps.db, bots: deps.bots, runs: runs.services, clock: deps.clock, tasksWords: deps.tasksWords ?? appWords(new URL('./apps/tasks/', import.meta.url)) }));
  personal.route('/', mcpTokenRoutes({ db: deps.db, bots: deps.bots, clock: deps.clock, peopleRow }));
  personal.route('/', yoursRoutes({ db: deps.db, bots: deps.bots, clock: deps.clock, peopleRow }));
  // Passkeys and devices are the embedded default's own; Supabase mode signs people in its way.
  if (deps.personMode.kind === 'local') personal.route('/', peopleRoutes({ db: deps.db, clock: deps.clock }));
  const mcp = mcpEndpoint({
    db: deps.db,
    bots: deps.bots,
    executor,
    clock: deps.clock,
    personMode: deps.personMode.kind,
    ...(deps.mcpLimits ? { limits: deps.mcpLimits } : {}),
    ...(deps.mcpLog ? { log: deps.mcpLog } : {}),
  });
  const speak = speakProxy({
    authorize,
    endpoint: deps.speech,
    voicesFor: (grant) => (deps.bots.get(grant.bot)?.voice.by === 'endpoint' ? deps.bots.get(grant.bot)?.voice.voices : undefined),
    live: deps.live,
    // A sentence's spend hold lapses, settled or not, as an answer's does: its bot's minutes and a grace.
    voiceBy: (grant) => deps.bots.get(grant.bot)?.voice.by,
    meter: ({ grant, spendHoldUsd, nowMs }) =>
      gate.admit({ kind: 'paidSentence', person: grant.person, bot: grant.bot, limits: grant.limits, spendHoldUsd, spendHoldMs: grant.limits.minutes * 60_000 + SPEND_HOLD_GRACE_MS, siteKeys: true, nowMs }),
    ...(deps.speechUsdPerMillionChars === undefined ? {} : { usdPerMillionChars: deps.speechUsdPerMillionChars }),
    clock: deps.clock,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  return {
    bots: deps.bots,
    grantSecret: deps.grantSecret,
    clock: deps.clock,
    personMode: deps.personMode,
    db: deps.db,
    door,
    speak,
    personal,
    mcp: mcp.routes,
    words: pageWordsRoutes(book),
    wordBook: book,
    executor,
    running,
    mcpEndpoint: mcp,
    presence: pages,
    runs,
    seen: (person, bot) => runs.seen(person, bot),
    peopleRow,
    keys: keySweep({
      executor,
      clock: deps.clock,
      ...(deps.keySweepMs === undefined ? {} : { everyMs: deps.keySweepMs }),
      log: deps.verbLog ?? ((line) => { console.error(JSON.stringify(line)); }),
    }),
  };
}
