/**
 * One provider asked for one answer, through the wire its `kind` names (`openaiWire.ts`,
 * `anthropicWire.ts`): this module knows when to ask, how long to wait and what a failure means,
 * never an API's shapes. The request always streams (with usage); the answer is "open" once its
 * first token has arrived, because until then a failure that is the provider's own may still be
 * handed to the next provider, and after it the answer is this provider's whatever happens.
 */
import { anthropicWire } from './anthropicWire';
import { ProviderError } from './errors';
import { openaiWire } from './openaiWire';
import { failureOfResponse, isProvidersOwn, isTheirsToFix } from './providerFailure';
import type { PromptMessage, Provider, ProviderKind, ProviderWire, UpstreamEvent, UpstreamTool } from './providerWire';

// The door names providers and their conversation through this module, as it asks them here.
export { PROVIDER_KINDS, TOKENS_FIELDS } from './providerWire';
export type { PromptMessage, Provider, ProviderKind, TokensField, UpstreamEvent } from './providerWire';

/** Each kind of provider's wire. */
const WIRES: Record<ProviderKind, ProviderWire> = { openai: openaiWire, anthropic: anthropicWire };

/** One provider to ask, with the model to ask it for. */
export interface Attempt {
  provider: Provider;
  model: string;
}

/** What a bot says about providers: see `Bot.provider` and `Bot.model`. */
export interface ProviderChoice {
  provider?: string;
  model?: string;
}

/**
 * The order to ask providers in for `bot`. The provider the bot names goes first, with the bot's
 * model; the others follow in their configured order, each with its own model, since a model name
 * belongs to the provider it was written for and sending it elsewhere is a second failure, not a
 * fallback. A bot that names a model but no provider means the first configured one. A bot that
 * names a provider that is not configured has its model sent nowhere.
 */
export function providerOrder(providers: readonly Provider[], bot: ProviderChoice): Attempt[] {
  const preferred = bot.provider === undefined ? providers[0] : providers.find((provider) => provider.name === bot.provider);
  const ordered = preferred === undefined ? [...providers] : [preferred, ...providers.filter((provider) => provider !== preferred)];
  return ordered.map((provider) => ({
    provider,
    model: provider === preferred && bot.model !== undefined ? bot.model : provider.model,
  }));
}

/** An answer whose first token has arrived. */
export interface OpenUpstream extends Attempt {
  /** Every event from the first token on. Throws when the stream breaks; stopping early cancels it. */
  events: AsyncGenerator<UpstreamEvent, void, undefined>;
}

export interface OpenOptions {
  /** Aborts the whole answer: the client left, or a per-answer limit ran out. */
  signal: AbortSignal;
  fetch: typeof fetch;
  /** How long to wait for the first token before asking the next provider, in ms. */
  firstTokenMs: number;
  /** The verbs in scope, as OpenAI tools; none: the request carries no `tools`. */
  tools?: readonly UpstreamTool[];
  /** Most tokens one call may answer with, sent as the provider's `tokensField`, so no answer runs away. Default `ANSWER_TOKENS`. */
  answerTokens?: number;
}

/** The answer ceiling a bot gets unless told otherwise: an answer-sized reply, in tokens. */
export const ANSWER_TOKENS = 4096;

/**
 * Asks `attempt` for an answer to `messages` and waits for its first token (text, or the first
 * piece of a tool call). Rejects with a `ProviderError` when it fails before then (its `fallover`
 * says whether to ask the next), or with `signal.reason` once `signal` has aborted.
 */
export async function openUpstream(attempt: Attempt, messages: readonly PromptMessage[], options: OpenOptions): Promise<OpenUpstream> {
  const { provider, model } = attempt;
  const wire = WIRES[provider.kind ?? 'openai'];
  const timeout = new AbortController();
  const timer = setTimeout(() => {
    timeout.abort(new Error('no first token in time'));
  }, options.firstTokenMs);
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const failed = (failure: 'unreachable' | 'stream', cause: unknown): unknown => {
    if (options.signal.aborted) return options.signal.reason;
    return new ProviderError(provider.name, timeout.signal.aborted ? 'timeout' : failure, true, undefined, undefined, { cause });
  };

  try {
    let response: Response;
    try {
      const { url, headers, body } = wire.requestOf(provider, { model, messages, tools: options.tools, answerTokens: options.answerTokens ?? ANSWER_TOKENS });
      response = await options.fetch(url, { method: 'POST', headers, body, signal });
    } catch (error) {
      throw failed('unreachable', error);
    }
    if (!response.ok) {
      const { code, sentence } = await failureOfResponse(response, provider.apiKey).catch(() => ({ code: undefined, sentence: undefined }));
      if (options.signal.aborted) throw options.signal.reason;
      const theirs = isTheirsToFix(response.status, code, sentence);
      throw new ProviderError(provider.name, 'status', isProvidersOwn(response.status, code, sentence), response.status, code, theirs ? { sentence } : undefined);
    }
    const events = wire.eventsOf(response);
    const early: UpstreamEvent[] = [];
    try {
      for (;;) {
        const next = await events.next();
        if (next.done) break;
        early.push(next.value);
        if (next.value.type === 'delta' || next.value.type === 'tool-call') break;
      }
    } catch (error) {
      await events.return();
      throw failed('stream', error);
    }
    return { provider, model, events: replay(early, events) };
  } finally {
    clearTimeout(timer);
  }
}

async function* replay(early: readonly UpstreamEvent[], rest: AsyncGenerator<UpstreamEvent, void, undefined>): AsyncGenerator<UpstreamEvent, void, undefined> {
  yield* early;
  yield* rest;
}
