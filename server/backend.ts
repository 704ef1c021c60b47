/**
 * The API assembled from its parts: who is asking, grants, the chat door with memory and the
 * ledger, the speak proxy, and the person's conversations — everything `createApp` mounts. Tests
 * build it the same way over an in-memory database and a local upstream.
 */
import type { Context } from 'hono';
import type { ApiDeps } from './app';
import type { Bot } from './bots';
import { chatDoor } from './chat/chatDoor';
import type { DoorLogLine } from './chat/chatDoor';
import type { PriceTable } from './chat/prices';
import type { Provider } from './chat/upstream';
import { conversationRoutes } from './conversations';
import type { Database } from './db/database';
import { bearerGrant } from './grants';
import { databaseLedger } from './ledger';
import type { Embedder } from './memory/embed';
import { memoryContext, memoryWriter } from './memory/context';
import type { PersonMode } from './person';
import { speakProxy } from './speak';
import type { SpeakEndpoint } from './speak';

export interface BackendDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  grantSecret: Uint8Array;
  personMode: PersonMode;
  providers: readonly Provider[];
  live: boolean;
  prices: PriceTable;
  speech: SpeakEndpoint | undefined;
  embedder: Embedder;
  clock: () => number;
  fetch?: typeof fetch;
  /** Structured log lines (never transcripts, answers or keys). Default: JSON on stderr. */
  log?: (line: DoorLogLine) => void;
}

export function createBackend(deps: BackendDeps): ApiDeps {
  const authorize = (c: Context) => bearerGrant(c, deps.grantSecret, { nowMs: deps.clock() });
  const botOf = (slug: string) => deps.bots.get(slug);
  const context = memoryContext(deps.db, deps.embedder);
  const remember = memoryWriter(deps.db, deps.embedder);
  const door = chatDoor({
    authorize,
    botOf,
    providers: deps.providers,
    live: deps.live,
    prices: deps.prices,
    ledger: databaseLedger(deps.db),
    context: (turn) => context({ person: turn.grant.person, bot: turn.grant.bot, memory: turn.bot.memory, messages: turn.messages }),
    afterAnswer: (turn) => remember({ person: turn.grant.person, bot: turn.grant.bot, memory: turn.bot.memory, question: turn.question }),
    clock: deps.clock,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(deps.log ? { log: deps.log } : {}),
  });
  const speak = speakProxy({
    authorize,
    endpoint: deps.speech,
    voicesFor: (grant) => (deps.bots.get(grant.bot)?.voice.by === 'endpoint' ? deps.bots.get(grant.bot)?.voice.voices : undefined),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  return {
    bots: deps.bots,
    grantSecret: deps.grantSecret,
    clock: deps.clock,
    personMode: deps.personMode,
    door,
    speak,
    personal: conversationRoutes({ db: deps.db, bots: deps.bots }),
  };
}
