/**
 * The backend's settings, read from the environment in one place (`server/index.ts` calls this;
 * nothing else reads the environment). Every setting has a default that costs nothing: no provider
 * is called until one is configured AND `AGENTS_LIVE=1`.
 */
import { BACKGROUND_SHARE_DEFAULT } from './gate';
import { resolve } from 'node:path';
import { PROVIDER_KINDS, TOKENS_FIELDS } from './chat/upstream';
import type { Provider, ProviderKind, TokensField } from './chat/upstream';
import { validateLimits } from './db/limits';
import type { PersonLimits } from './db/limits';
import type { PriceTable } from './chat/prices';
import { ConfigError } from './config';
import type { SpeakEndpoint } from './speak';

export interface BackendConfig {
  /** `DATABASE_URL`: Postgres with pgvector (Supabase or any). Unset: PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  /** `DATABASE_DIRECT_URL`: a session connection to the same Postgres for LISTEN, when `DATABASE_URL` names a transaction pooler. */
  databaseDirectUrl: string | undefined;
  /** `CONFAB_DATA_DIR`, default `.data`: the embedded database and the generated grant secret. */
  dataDir: string;
  /** `CONFAB_BOTS_DIR`, default `bots`. */
  botsDir: string;
  /**
   * The chat endpoints, tried in order: `CONFAB_PROVIDERS`, else OpenAI's (`OPENAI_API_KEY`) then
   * Anthropic's (`ANTHROPIC_API_KEY`), whichever have keys.
   */
  providers: Provider[];
  /** `AGENTS_LIVE=1`: providers are really called (and paid for). Otherwise the stand-in answers. */
  live: boolean;
  prices: PriceTable;
  /** The paid voice behind `/api/speak`, when `COPILOT_TTS_URL` is set. */
  speech: SpeakEndpoint | undefined;
  /**
   * `CONFAB_EMBEDDER`, default `auto`: the best local embedder that loads (the sentence model in
   * `.data/models/`, else the `words` embedder, else `hash`); `minilm` or `words` to ask for one
   * (falling back to `hash` when it cannot load); `hash`; or `endpoint`.
   */
  embedder: { kind: 'auto' | 'minilm' | 'words' | 'hash' } | { kind: 'endpoint'; baseUrl: string; apiKey: string; model: string };
  /**
   * `CONFAB_UPSTREAM_IDLE_S`, default 20: seconds a provider may go silent mid-answer before the
   * answer is cut, with a sentence saying so.
   */
  upstreamIdleMs: number;
  /**
   * `CONFAB_SITE_LIMITS`: ceilings over everybody together, in the window grammar of a bot's
   * `limits`. Default `SITE_LIMITS_DEFAULT`.
   */
  siteLimits: PersonLimits;
  /** `CONFAB_ANSWER_TOKENS`, default 4096: most tokens a provider may answer one call with. */
  answerTokens: number;
  /** `COPILOT_TTS_PRICE`: USD per million characters of the paid voice. Default `TTS_PRICE_DEFAULT`. */
  speechUsdPerMillionChars: number;
  /**
   * `CONFAB_BACKGROUND_SHARE`, default 0.5: the share of the site's windows that work nobody is
   * waiting for (runs, schedules) may use, 0 to 1; people asking now keep the rest.
   */
  backgroundShare: number;
  /**
   * `CONFAB_IDLE_DAYS`, default 30: days a person may go unseen (no grant minted for them, no MCP
   * token used) before their schedules pause; they run again, and the person is told, on their return.
   */
  idleDays: number;
  /** `CONFAB_SITE_SCHEDULES`, default 1000: most active schedules the whole site keeps; past it a new one is refused with a sentence. */
  siteSchedules: number;
}

/**
 * The site's ceiling when none is set: $20 a day over everybody. A household's or a demo's day of
 * answers on a small model costs well under it, and a script that drops its cookie for a day costs
 * the site at most this; a site that wants more (or less) says so.
 */
export const SITE_LIMITS_DEFAULT: PersonLimits = Object.freeze({ perDay: Object.freeze({ spend: 20 }) });

/** USD per million characters of the paid voice when none is set: OpenAI's tts-1 list price. */
const TTS_PRICE_DEFAULT = 15;

/**
 * USD per million tokens. `*` prices any model not named, deliberately high, so a spend ceiling
 * still holds for a model nobody priced; name your models in `CONFAB_PRICES` for true costs.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  'gpt-4o-mini': { promptUsdPerMillion: 0.15, completionUsdPerMillion: 0.6 },
  'gpt-4.1-mini': { promptUsdPerMillion: 0.4, completionUsdPerMillion: 1.6 },
  'gpt-4o': { promptUsdPerMillion: 2.5, completionUsdPerMillion: 10 },
  // Anthropic's list prices by family; a dated id (claude-sonnet-4-20250514) is priced by its family.
  'claude-3-5-haiku': { promptUsdPerMillion: 0.8, completionUsdPerMillion: 4 },
  'claude-haiku-4-5': { promptUsdPerMillion: 1, completionUsdPerMillion: 5 },
  'claude-sonnet-4': { promptUsdPerMillion: 3, completionUsdPerMillion: 15 },
  'claude-sonnet-4-5': { promptUsdPerMillion: 3, completionUsdPerMillion: 15 },
  'claude-opus-4': { promptUsdPerMillion: 15, completionUsdPerMillion: 75 },
  'claude-opus-4-1': { promptUsdPerMillion: 15, completionUsdPerMillion: 75 },
  'claude-opus-4-5': { promptUsdPerMillion: 5, completionUsdPerMillion: 25 },
  '*': { promptUsdPerMillion: 10, completionUsdPerMillion: 30 },
});

function parseJson(name: string, value: string, what: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (cause) {
    throw new ConfigError(`${name} is not valid JSON; it must be ${what}.`, { cause });
  }
}

const PROVIDERS_SHAPE =
  'a JSON array of {"name", "baseUrl", "model", "keyEnv", "kind"?} where keyEnv names the variable that holds that provider\'s key and kind is "openai" (the default) or "anthropic"';

/** Anthropic's API, as its SDK takes the base URL. */
const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** The model an `ANTHROPIC_API_KEY` alone is asked for: Anthropic's fast, inexpensive current one, as a voice wants. */
const ANTHROPIC_MODEL = 'claude-haiku-4-5';

function readProviders(env: Record<string, string | undefined>): Provider[] {
  const listed = env.CONFAB_PROVIDERS?.trim();
  if (listed) {
    const raw = parseJson('CONFAB_PROVIDERS', listed, PROVIDERS_SHAPE);
    if (!Array.isArray(raw) || raw.length === 0) throw new ConfigError(`CONFAB_PROVIDERS must be ${PROVIDERS_SHAPE}.`);
    return raw.map((entry: unknown, i) => {
      const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      const tokensField = e.tokensField;
      const kind = e.kind;
      if (kind !== undefined && !PROVIDER_KINDS.includes(kind as ProviderKind)) {
        throw new ConfigError(`CONFAB_PROVIDERS[${i}].kind is ${JSON.stringify(kind)}; give "openai" (the default, any OpenAI-shaped endpoint) or "anthropic" (Anthropic's Messages API).`);
      }
      if (kind === 'anthropic' && tokensField !== undefined) {
        throw new ConfigError(`CONFAB_PROVIDERS[${i}] is an "anthropic" provider, which always takes max_tokens; remove its tokensField.`);
      }
      if (tokensField !== undefined && !TOKENS_FIELDS.includes(tokensField as TokensField)) {
        throw new ConfigError(`CONFAB_PROVIDERS[${i}].tokensField is ${JSON.stringify(tokensField)}; give "max_completion_tokens" (the default) or "max_tokens" for a provider that wants the old name.`);
      }
      for (const field of ['name', 'baseUrl', 'model', 'keyEnv']) {
        if (typeof e[field] !== 'string' || e[field] === '') {
          throw new ConfigError(`CONFAB_PROVIDERS[${i}].${field} must be a non-empty string; each entry is {"name", "baseUrl", "model", "keyEnv"}.`);
        }
      }
      const keyEnv = e.keyEnv as string;
      const apiKey = env[keyEnv];
      if (!apiKey) throw new ConfigError(`CONFAB_PROVIDERS[${i}] names ${keyEnv} for its key, but ${keyEnv} is not set.`);
      if (!/^https?:\/\//.test(e.baseUrl as string)) throw new ConfigError(`CONFAB_PROVIDERS[${i}].baseUrl must be an http(s) URL.`);
      return { name: e.name as string, ...(kind === undefined ? {} : { kind: kind as ProviderKind }), baseUrl: e.baseUrl as string, model: e.model as string, apiKey, ...(tokensField === undefined ? {} : { tokensField: tokensField as TokensField }) };
    });
  }
  const providers: Provider[] = [];
  if (env.OPENAI_API_KEY) {
    providers.push({
      name: 'openai',
      baseUrl: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      model: env.OPENAI_MODEL || 'gpt-4o-mini',
      apiKey: env.OPENAI_API_KEY,
    });
  }
  if (env.ANTHROPIC_API_KEY) {
    const baseUrl = env.ANTHROPIC_BASE_URL || ANTHROPIC_BASE_URL;
    if (!/^https?:\/\//.test(baseUrl)) throw new ConfigError('ANTHROPIC_BASE_URL must be an http(s) URL, such as https://api.anthropic.com.');
    providers.push({ name: 'anthropic', kind: 'anthropic', baseUrl, model: env.ANTHROPIC_MODEL || ANTHROPIC_MODEL, apiKey: env.ANTHROPIC_API_KEY });
  }
  return providers;
}

function readPrices(env: Record<string, string | undefined>): PriceTable {
  const given = env.CONFAB_PRICES?.trim();
  if (!given) return DEFAULT_PRICES;
  const shape = 'a JSON object of model → {"promptUsdPerMillion", "completionUsdPerMillion"}';
  const raw = parseJson('CONFAB_PRICES', given, shape);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`CONFAB_PRICES must be ${shape}.`);
  const prices: Record<string, { promptUsdPerMillion: number; completionUsdPerMillion: number }> = { ...DEFAULT_PRICES };
  for (const [model, price] of Object.entries(raw as Record<string, unknown>)) {
    const p = (typeof price === 'object' && price !== null ? price : {}) as Record<string, unknown>;
    const prompt = p.promptUsdPerMillion;
    const completion = p.completionUsdPerMillion;
    if (typeof prompt !== 'number' || typeof completion !== 'number' || prompt < 0 || completion < 0) {
      throw new ConfigError(`CONFAB_PRICES["${model}"] must be {"promptUsdPerMillion": n, "completionUsdPerMillion": n} with n ≥ 0.`);
    }
    prices[model] = { promptUsdPerMillion: prompt, completionUsdPerMillion: completion };
  }
  return prices;
}

function readSpeech(env: Record<string, string | undefined>): SpeakEndpoint | undefined {
  const url = env.COPILOT_TTS_URL?.trim();
  if (!url) return undefined;
  if (!/^https?:\/\//.test(url)) throw new ConfigError(`COPILOT_TTS_URL must be an http(s) URL (a base such as https://api.openai.com/v1, or the speech path itself).`);
  const voices = env.COPILOT_TTS_VOICES?.split(',').map((v) => v.trim()).filter((v) => v !== '');
  return {
    url,
    ...(env.COPILOT_TTS_KEY ? { key: env.COPILOT_TTS_KEY } : {}),
    ...(env.COPILOT_TTS_MODEL ? { model: env.COPILOT_TTS_MODEL } : {}),
    ...(env.COPILOT_TTS_VOICE ? { voice: env.COPILOT_TTS_VOICE } : {}),
    ...(voices && voices.length > 0 ? { voices } : {}),
  };
}

function readEmbedder(env: Record<string, string | undefined>): BackendConfig['embedder'] {
  const kind = env.CONFAB_EMBEDDER?.trim() || 'auto';
  if (kind === 'auto' || kind === 'minilm' || kind === 'words' || kind === 'hash') return { kind };
  if (kind !== 'endpoint') {
    throw new ConfigError(`CONFAB_EMBEDDER is "${kind}"; set it to auto (the best local one that loads, the default), minilm, words, hash or endpoint.`);
  }
  const baseUrl = env.CONFAB_EMBEDDINGS_URL;
  const apiKey = env.CONFAB_EMBEDDINGS_KEY;
  if (!baseUrl || !apiKey) {
    throw new ConfigError('CONFAB_EMBEDDER=endpoint needs CONFAB_EMBEDDINGS_URL (an OpenAI-shaped base URL) and CONFAB_EMBEDDINGS_KEY.');
  }
  return { kind, baseUrl, apiKey, model: env.CONFAB_EMBEDDINGS_MODEL || 'text-embedding-3-small' };
}

export function readBackendConfig(env: Record<string, string | undefined>, cwd = process.cwd()): BackendConfig {
  return {
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    databaseDirectUrl: env.DATABASE_DIRECT_URL?.trim() || undefined,
    dataDir: resolve(cwd, env.CONFAB_DATA_DIR || '.data'),
    botsDir: resolve(cwd, env.CONFAB_BOTS_DIR || 'bots'),
    providers: readProviders(env),
    live: env.AGENTS_LIVE === '1',
    prices: readPrices(env),
    speech: readSpeech(env),
    embedder: readEmbedder(env),
    upstreamIdleMs: readUpstreamIdleMs(env),
    siteLimits: readSiteLimits(env),
    answerTokens: readAnswerTokens(env),
    speechUsdPerMillionChars: readSpeechPrice(env),
    backgroundShare: readBackgroundShare(env),
    idleDays: readWhole(env, 'CONFAB_IDLE_DAYS', 30, 1, 3650, 'days a person may go unseen before their schedules pause'),
    siteSchedules: readWhole(env, 'CONFAB_SITE_SCHEDULES', 1000, 0, 1_000_000, 'most active schedules the whole site keeps'),
  };
}

/** A whole number setting from `min` to `max`, `fallback` when unset; refused with a sentence naming what it means. */
function readWhole(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number, meaning: string): number {
  const given = env[name]?.trim();
  if (given === undefined || given === '') return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} is "${given}"; give the ${meaning}, a whole number from ${String(min)} to ${String(max)} (default ${String(fallback)}).`);
  }
  return value;
}

function readBackgroundShare(env: Record<string, string | undefined>): number {
  const given = env.CONFAB_BACKGROUND_SHARE?.trim();
  if (given === undefined || given === '') return BACKGROUND_SHARE_DEFAULT;
  const share = Number(given);
  if (!(Number.isFinite(share) && share >= 0 && share <= 1)) {
    throw new ConfigError(`CONFAB_BACKGROUND_SHARE is "${given}"; give the share of the site's windows background work may use, from 0 (none) to 1 (all), such as 0.5.`);
  }
  return share;
}

const SITE_LIMITS_SHAPE = 'JSON in the window grammar of a bot\'s limits, such as {"perMinute":{"answers":60},"perDay":{"spend":5}}';

function readSiteLimits(env: Record<string, string | undefined>): PersonLimits {
  const given = env.CONFAB_SITE_LIMITS?.trim();
  if (given === undefined || given === '') return SITE_LIMITS_DEFAULT;
  const raw = parseJson('CONFAB_SITE_LIMITS', given, SITE_LIMITS_SHAPE);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`CONFAB_SITE_LIMITS must be ${SITE_LIMITS_SHAPE}.`);
  const windows = ['perMinute', 'perHour', 'perDay', 'perWeek', 'perMonth'];
  for (const key of Object.keys(raw)) {
    if (!windows.includes(key)) throw new ConfigError(`CONFAB_SITE_LIMITS.${key} is not a window; use ${windows.join(', ')}.`);
  }
  try {
    validateLimits(raw);
  } catch (error) {
    if (error instanceof RangeError) throw new ConfigError(`CONFAB_SITE_LIMITS: ${error.message.replace(/^limits\./, '')}`, { cause: error });
    throw error;
  }
  return raw;
}

function readAnswerTokens(env: Record<string, string | undefined>): number {
  const given = env.CONFAB_ANSWER_TOKENS?.trim();
  if (given === undefined || given === '') return 4096;
  const tokens = Number(given);
  if (!Number.isInteger(tokens) || tokens < 1 || tokens > 1_000_000) {
    throw new ConfigError(`CONFAB_ANSWER_TOKENS is "${given}"; give the most tokens one answer may have, a whole number from 1 (default 4096).`);
  }
  return tokens;
}

function readSpeechPrice(env: Record<string, string | undefined>): number {
  const given = env.COPILOT_TTS_PRICE?.trim();
  if (given === undefined || given === '') return TTS_PRICE_DEFAULT;
  const usd = Number(given);
  if (!Number.isFinite(usd) || usd < 0) {
    throw new ConfigError(`COPILOT_TTS_PRICE is "${given}"; give US dollars per million characters spoken, 0 or more (default ${TTS_PRICE_DEFAULT}).`);
  }
  return usd;
}

function readUpstreamIdleMs(env: Record<string, string | undefined>): number {
  const given = env.CONFAB_UPSTREAM_IDLE_S?.trim();
  if (given === undefined || given === '') return 20_000;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 600) {
    throw new ConfigError(`CONFAB_UPSTREAM_IDLE_S is "${given}"; give the seconds a provider may go silent mid-answer, from 1 to 600 (default 20).`);
  }
  return Math.round(seconds * 1000);
}
