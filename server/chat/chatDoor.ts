/**
 * The chat door: `POST /chat/completions` in OpenAI's chat-completions shape, for a caller holding
 * a grant. Mount it with `app.route('/v1', chatDoor(deps))`.
 *
 * The door is a door, not an engine: the grant says which bot and whose ceilings, the bot file
 * says the prompt and the model, and the client's user and assistant turns are the conversation.
 * Nothing is bought unless `live` is set and a provider is configured; until then a scripted
 * stand-in answers and says why. Each turn is reserved against the person's and the site's rolling
 * windows before the provider is asked, and settled once it has ended (`admission.ts`); a refusal is
 * a sentence in the answer, so the voice can say it, and `x-confab-refused` says whose windows
 * refused it (`person` or `site`), so a client can tell it from an answer.
 *
 * A streamed answer's headers go out as soon as the turn is admitted, while the provider is asked,
 * as OpenAI's own API sends them: the first token is then one write on a response the client
 * already holds. What fails after that (every provider, or the one whose refusal would be every
 * provider's) is an error event in OpenAI's shape in the stream; what fails before it (the grant,
 * the body, the bot) is an HTTP error. Every chunk names the provider that answered (`provider`:
 * its name, `stand-in`, or `none` for a refusal), and a whole completion says it in its body and
 * in `x-confab-provider` too.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { streamSSE } from 'hono/streaming';
import type { SSEStreamingApi } from 'hono/streaming';
import { openAiTools } from '../verbs/project';
import type { Verb } from '../verbs/verb';
import { actingAnswer } from './acting';
import type { TurnActing } from './acting';
import { AnswerStop, CLOSING_SENTENCES, finishReason, limitedAnswer, sentenceAnswer } from './answer';
import type { AnswerEnded, AnswerPieces, AnswerResult } from './answer';
import { lastQuestion, parseChatRequest } from './chatRequest';
import { admit, REFUSED_HEADER } from './admission';
import type { RefusedBy } from './admission';
import type { ChatMessage, ChatRequest, ConversationMessage } from './chatRequest';
import { ChatRequestError, NoProviderAnswered, ProviderError } from './errors';
import type { ProviderFailure } from './errors';
import { openFirstAnswering } from './fallover';
import { costUsd, estimateTokens, priceOf } from './prices';
import type { PriceTable, TokenUsage } from './prices';
import { realSleep, STAND_IN_MODEL, standInAnswer, standInReason, wordByWord } from './standIn';
import type { Sleep, StandInReason } from './standIn';
import type { RunningAnswers } from './runningAnswers';
import { standInModel } from './standInModel';
import { IDEMPOTENCY_HEADER, TURN_HEADER, turnIdOf } from './turnId';
import { ANSWER_TOKENS, providerOrder } from './upstream';
import type { PromptMessage, Provider, ProviderChoice } from './upstream';
import { chunkOf, completionOf, errorOf, usageChunkOf } from './wire';
import type { AnswerHeader, OpenAiError } from './wire';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** What the door reads from a verified grant; the real claims may carry more. */
export interface DoorGrant {
  /** The bot's slug. */
  bot: string;
  /** The person, as the server derived them. */
  person: string;
  /** The per-answer ceilings signed into the grant. */
  limits: AnswerLimits;
}

/** Per-answer ceilings. Windows over many answers are the ledger's. */
export interface AnswerLimits {
  /** Most USD one answer may cost, by the running estimate; unset: not limited. */
  spend?: number;
  /** Longest one answer may take, in minutes, from the request to its last token; unset: not limited. */
  minutes?: number;
}

/** What the door reads from a bot file; the real bot may carry more. */
export interface DoorBot extends ProviderChoice {
  /** The system prompt. Never leaves the server except to the provider. */
  prompt: string;
}

/** The provider name recorded for the stand-in's answers. */
export const STAND_IN = 'stand-in';
export { STAND_IN_MODEL } from './standIn';
/** The `model` a refusal reports. */
export const REFUSAL_MODEL = 'confab';

export type Reservation = { ok: true; reservation: string } | { ok: false; sentence: string; by: RefusedBy };

/** What one answer used, settled against its reservation. */
export interface AnswerSpend extends TokenUsage {
  /** The provider that answered: its name, `stand-in`, or null when none did. */
  provider: string | null;
  /** The model that answered (the stand-in's is `confab-stand-in`); null when none did. */
  model: string | null;
  /** How it ended; `failed` when no provider started an answer. */
  ended: AnswerEnded | 'failed';
  /** Whether the tokens are estimated at four characters each, the provider having reported none. */
  estimated: boolean;
  /** USD by the price table, for the model that answered; 0 for the stand-in. */
  costUsd: number;
  /** False when the answering model has no price, so `costUsd` is 0 without being free. */
  priced: boolean;
  /** When the answer ended, in ms since the epoch. */
  nowMs: number;
}

/** Spend over rolling windows, the person's and the site's; the real one lives in the database. */
export interface DoorLedger<G extends DoorGrant> {
  /** Holds the turn against the windows before anything is bought; a refusal says why, in a sentence, and whose windows refused. */
  reserve(ask: { grant: G; nowMs: number }): Promise<Reservation>;
  /** Records what a reserved turn used, once it has ended, however it ended. Called once per reservation (`admission.ts`). */
  settle(reservation: string, spend: AnswerSpend): Promise<void>;
}

/** One turn through the door, as `context` and `afterAnswer` see it. */
export interface DoorTurn<G extends DoorGrant, B extends DoorBot> {
  grant: G;
  bot: B;
  /** The client's user and assistant turns. */
  messages: readonly ConversationMessage[];
  /** `x-confab-conversation`: the page's key for this conversation, if it sent a well-formed one. */
  conversationKey?: string | undefined;
}

/** A turn as `acting` sees it: with what the page says of the conversation and the person's clock. */
export interface ActingTurn<G extends DoorGrant, B extends DoorBot> extends DoorTurn<G, B> {
  /** `x-confab-conversation`: the page's key for this conversation, if it sent a well-formed one. */
  conversationKey: string | undefined;
  /** `x-confab-time-zone`, when it names a real IANA zone; else `UTC`. */
  timeZone: string;
  /** `x-confab-turn` (or `Idempotency-Key`): the same on a retry of this turn; a fresh one when neither was sent. */
  turnId: string;
}

/** What a turn may do: the verbs offered to the model, and the loop's means of running them. */
export interface TurnPlan {
  verbs: readonly Verb[];
  acting: TurnActing;
}

/** A turn that was answered, for whatever is written afterwards (memories). */
export interface AnsweredTurn<G extends DoorGrant, B extends DoorBot> extends DoorTurn<G, B> {
  /** The last thing the person said. */
  question: string;
  /** The answer as it was sent, closing sentence included. */
  answer: string;
  /** Which provider answered (`stand-in` for the stand-in). */
  provider: string;
  ended: AnswerEnded;
}

/** A structured log line. None holds a question, an answer, a prompt or a key. */
export type DoorLogLine =
  | { event: 'provider.fell-over'; provider: string; failure: ProviderFailure; status?: number; code?: string }
  | { event: 'answer.ended'; provider: string | null; model: string | null; ended: AnswerEnded | 'failed'; promptTokens: number; completionTokens: number; estimated: boolean; costUsd: number; ms: number }
  | { event: 'answer.unpriced'; model: string }
  | { event: 'answer.refused'; by: RefusedBy }
  | { event: 'settle.failed' | 'after-answer.failed' | 'door.failed'; error: string };

export interface DoorOptions {
  /** Largest request body, in bytes; past it the answer is 413. Default 64 KiB. */
  bodyBytesMax: number;
  /** How long a provider may take to send its first token before the next is asked, in ms. Default 20 000. */
  firstTokenMs: number;
  /** The pause between the stand-in's words, in ms. Default 40. */
  standInWordMs: number;
  /**
   * Longest a provider may go silent after its first token, in ms, before the answer is cut with a
   * sentence saying so (`CONFAB_UPSTREAM_IDLE_S`). Default 20 000.
   */
  upstreamIdleMs: number;
  /**
   * Most tokens a provider may answer one call with (`max_completion_tokens`, or `max_tokens` for a
   * provider that wants the old name), so no answer runs away (`CONFAB_ANSWER_TOKENS`). Default 4096.
   */
  answerTokens: number;
}

export const DOOR_DEFAULTS: Readonly<DoorOptions> = Object.freeze({
  answerTokens: ANSWER_TOKENS,
  bodyBytesMax: 64 * 1024,
  firstTokenMs: 20_000,
  standInWordMs: 40,
  upstreamIdleMs: 20_000,
});

export interface DoorDeps<G extends DoorGrant, B extends DoorBot> extends Partial<DoorOptions> {
  /** The verified grant of `Authorization: Bearer <grant>`; throws `HTTPException(401)` when refused. */
  authorize: (c: Context) => G | Promise<G>;
  /** The bot a grant names, by slug; undefined when its file is gone (404). */
  botOf: (slug: string) => B | undefined;
  /** OpenAI-shaped endpoints, asked in order (the bot's own provider first). */
  providers: readonly Provider[];
  /** `AGENTS_LIVE=1`: providers may be bought from. Unset, the stand-in answers whatever keys there are. */
  live: boolean;
  /** Prices by model, for settled costs and the `spend` ceiling. */
  prices: PriceTable;
  ledger: DoorLedger<G>;
  /**
   * What follows the bot's prompt: the conversation, with whatever the bot's memory adds (past
   * lines, recalled memories). Default: the client's messages as they are.
   */
  context?: (turn: DoorTurn<G, B>) => Promise<ChatMessage[]>;
  /**
   * Called once an answer has been sent (also one cut short by a limit or a broken provider; not
   * for refusals, failures before any answer, or a client that left). Not awaited by the answer;
   * its failures are logged by name.
   */
  afterAnswer?: (turn: AnsweredTurn<G, B>) => Promise<void>;
  /**
   * What this turn may do: the verbs in its scope and how they run. Unset, or undefined for a turn,
   * the model is offered no tools and only talks.
   */
  acting?: (turn: ActingTurn<G, B>) => Promise<TurnPlan | undefined>;
  /** The answers running now, for a graceful stop; while it stops, no new turn is admitted. */
  running?: RunningAnswers;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** How providers are reached. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** How the stand-in waits between words. Default: a timer. */
  sleep?: Sleep;
  /** Where log lines go. Default: one JSON line each on stderr. */
  log?: (line: DoorLogLine) => void;
}

/** A door setting a person must fix. */
export class DoorConfigError extends Error {
  override readonly name = 'DoorConfigError';
}

const stderrLog = (line: DoorLogLine): void => {
  console.error(JSON.stringify(line));
};

/** Where an answer comes from: the stand-in, saying why, or a provider, given this context. */
type AnswerSource = { standIn: StandInReason } | { context: Promise<ChatMessage[]> };

/** An answer ready to be sent, with what runs once it has ended (`settle`) and once it has been sent (`after`). */
interface Sending {
  answer: Answer;
  settle?: (result: AnswerResult) => Promise<TokenUsage>;
  after?: (result: AnswerResult, text: string) => void;
}

/** Settling an answer nothing was reserved for. */
const settledFree = (): Promise<TokenUsage> => Promise.resolve({ promptTokens: 0, completionTokens: 0 });

/** How a turn ended, for settling: an answer's result, or no answer at all. */
type Ending = Omit<AnswerResult, 'ended'> & { ended: AnswerEnded | 'failed' };

/** One answer on its way out: where it came from and its pieces. */
interface Answer {
  provider: string | null;
  model: string;
  pieces: AnswerPieces;
  /** Estimated prompt tokens, for a provider that reports none. */
  promptTokens: number;
  /** False for the stand-in and refusals: nothing is bought. */
  bought: boolean;
}

export function chatDoor<G extends DoorGrant, B extends DoorBot>(deps: DoorDeps<G, B>): Hono {
  const options: DoorOptions = {
    bodyBytesMax: deps.bodyBytesMax ?? DOOR_DEFAULTS.bodyBytesMax,
    firstTokenMs: deps.firstTokenMs ?? DOOR_DEFAULTS.firstTokenMs,
    standInWordMs: deps.standInWordMs ?? DOOR_DEFAULTS.standInWordMs,
    upstreamIdleMs: deps.upstreamIdleMs ?? DOOR_DEFAULTS.upstreamIdleMs,
    answerTokens: deps.answerTokens ?? DOOR_DEFAULTS.answerTokens,
  };
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isFinite(value) || value < 0) throw new DoorConfigError(`${name} is ${String(value)}; it must be a number from 0.`);
  }
  // The global fetch (undici): it keeps connections alive, and never sends a request a second time.
  const fetchUpstream = deps.fetch ?? fetch;
  const sleep = deps.sleep ?? realSleep;
  const log = deps.log ?? stderrLog;
  const context = deps.context ?? ((turn: DoorTurn<G, B>) => Promise.resolve(turn.messages.map((message) => ({ ...message }))));

  const app = new Hono();

  app.post(
    '/chat/completions',
    bodyLimit({
      maxSize: options.bodyBytesMax,
      onError: () => {
        throw new ChatRequestError(`The request body is larger than ${String(options.bodyBytesMax)} bytes.`, null, 413);
      },
    }),
    async (c) => {
      const grant = await deps.authorize(c);
      if (deps.running?.stopping === true) throw new HTTPException(503, { message: 'The server is restarting; ask again in a moment.' });
      let body: unknown;
      try {
        body = await c.req.json();
      } catch (error) {
        throw new ChatRequestError('The request body is not valid JSON.', null, 400, { cause: error });
      }
      const request = parseChatRequest(body);
      const bot = deps.botOf(grant.bot);
      if (bot === undefined) throw new HTTPException(404, { message: 'The bot this grant names is not here any more.' });

      const conversationKey = conversationKeyOf(c.req.header('x-confab-conversation'));
      const turnId = turnIdOf(c.req.header(TURN_HEADER), c.req.header(IDEMPOTENCY_HEADER));
      const turn: DoorTurn<G, B> = { grant, bot, messages: request.messages, conversationKey };
      const plan = deps.acting === undefined
        ? Promise.resolve(undefined)
        : deps.acting({ ...turn, conversationKey, timeZone: timeZoneOf(c.req.header('x-confab-time-zone')), turnId });
      plan.catch(() => undefined);
      const standInWhy = standInReason(deps.providers.length, deps.live);
      // What follows the prompt is gathered while the turn is admitted: both read the database, and
      // on Postgres they run side by side. A refused turn's context is read and dropped.
      const source: AnswerSource = standInWhy === undefined ? { context: context(turn) } : { standIn: standInWhy };
      if ('context' in source) source.context.catch(() => undefined);
      const startedMs = deps.clock();
      // Reserve, ask, settle: nothing is asked of a provider before the turn is held.
      const admitted = await admit(deps.ledger, grant, startedMs);
      if (!admitted.ok) {
        log({ event: 'answer.refused', by: admitted.by });
        c.header(REFUSED_HEADER, admitted.by);
        const refusal: Answer = { provider: null, model: REFUSAL_MODEL, pieces: sentenceAnswer(admitted.sentence, 'refused'), promptTokens: 0, bought: false };
        return respond(c, request, Promise.resolve({ answer: refusal }));
      }

      // The answer's own signal: the client leaving, `minutes` running out, or `spend` passed.
      const controller = new AbortController();
      const finished = deps.running?.track(controller);
      const clientSignal = c.req.raw.signal;
      const onClientGone = () => {
        controller.abort(new AnswerStop('client'));
      };
      if (clientSignal.aborted) onClientGone();
      clientSignal.addEventListener('abort', onClientGone);
      const { minutes, spend } = grant.limits;
      const timer = minutes === undefined ? undefined : setTimeout(() => {
        controller.abort(new AnswerStop('minutes'));
      }, minutes * 60_000);

      /** Ends the turn's timers and settles what it used against its admission; the usage it settled. */
      const settle = async (answer: Answer | undefined, ending: Ending): Promise<TokenUsage> => {
        clearTimeout(timer);
        clientSignal.removeEventListener('abort', onClientGone);
        const bought = answer?.bought === true;
        const usage = ending.usage ?? { promptTokens: answer?.promptTokens ?? 0, completionTokens: estimateTokens(ending.modelChars) };
        const price = bought ? priceOf(deps.prices, answer.model) : undefined;
        if (bought && price === undefined) log({ event: 'answer.unpriced', model: answer.model });
        const spent: AnswerSpend = {
          ...usage,
          provider: answer?.provider ?? null,
          model: answer === undefined ? null : answer.model,
          ended: ending.ended,
          estimated: ending.usage === undefined,
          costUsd: costUsd(price, usage),
          priced: !bought || price !== undefined,
          nowMs: deps.clock(),
        };
        log({
          event: 'answer.ended',
          provider: spent.provider,
          model: spent.model,
          ended: spent.ended,
          promptTokens: spent.promptTokens,
          completionTokens: spent.completionTokens,
          estimated: spent.estimated,
          costUsd: spent.costUsd,
          ms: spent.nowMs - startedMs,
        });
        try {
          await admitted.settle(spent);
        } catch (error) {
          // The answer has been given; there is nobody left to tell but the log.
          log({ event: 'settle.failed', error: nameOf(error) });
        } finally {
          finished?.();
        }
        return usage;
      };

      /**
       * What will be sent, once it can be had: the provider's answer once its first token is in; a
       * sentence when a limit ran out before a word; null when the client left. Rejects as asking
       * the providers did.
       */
      const answering = async (): Promise<Sending | null> => {
        let answer: Answer;
        try {
          answer = await startAnswer(turn, source, controller, spend, await plan);
        } catch (error) {
          const why = controller.signal.reason instanceof AnswerStop ? controller.signal.reason.why : undefined;
          if (why === undefined || why === 'client') {
            await settle(undefined, { ended: why === 'client' ? 'aborted' : 'failed', modelChars: 0 });
            if (why === 'client') return null;
            throw error;
          }
          // A limit ran out before the first token: it is said, and nothing was answered.
          const cut: Answer = { provider: null, model: REFUSAL_MODEL, pieces: sentenceAnswer(CLOSING_SENTENCES[why], why), promptTokens: 0, bought: false };
          return { answer: cut, settle: (result) => settle(undefined, { ...result, modelChars: 0 }) };
        }
        const afterAnswer = deps.afterAnswer;
        const provider = answer.provider;
        return {
          answer,
          settle: (result) => settle(answer, result),
          after: (result, text) => {
            if (afterAnswer === undefined || provider === null || result.ended === 'aborted') return;
            afterAnswer({ grant, bot, messages: request.messages, conversationKey, question: lastQuestion(request.messages), answer: text, provider, ended: result.ended }).catch((error: unknown) => {
              log({ event: 'after-answer.failed', error: nameOf(error) });
            });
          },
        };
      };
      return respond(c, request, answering(), onClientGone);
    },
  );

  /**
   * The answer to `turn`: the stand-in's while nothing may be bought, else the first provider's to
   * send a token, limited by `spendUsd`. Rejects as `openFirstAnswering` does, or when gathering the
   * context did.
   */
  async function startAnswer(
    turn: DoorTurn<G, B>,
    source: AnswerSource,
    controller: AbortController,
    spendUsd: number | undefined,
    plan: TurnPlan | undefined,
  ): Promise<Answer> {
    if ('standIn' in source) {
      if (plan === undefined) {
        const text = standInAnswer(source.standIn, lastQuestion(turn.messages));
        return { provider: STAND_IN, model: STAND_IN_MODEL, pieces: standIn(text, controller.signal), promptTokens: 0, bought: false };
      }
      const why = source.standIn;
      const model = (messages: readonly PromptMessage[]) =>
        standInModel(messages, { reason: why, verbs: plan.verbs, wordMs: options.standInWordMs, sleep, signal: controller.signal });
      const pieces = actingAnswer(model(turn.messages), turn.messages, plan.acting, {
        controller,
        next: (messages) => Promise.resolve(model(messages)),
        limits: () => ({ promptTokens: 0 }),
        costOf: () => 0,
        sleep,
      });
      return { provider: STAND_IN, model: STAND_IN_MODEL, pieces, promptTokens: 0, bought: false };
    }
    const { prompt: system } = turn.bot;
    const prompt: ChatMessage[] = [...(system === '' ? [] : [{ role: 'system' as const, content: system }]), ...(await source.context)];
    const promptTokens = estimateTokens(prompt.reduce((sum, message) => sum + message.content.length, 0));
    const tools = plan === undefined || plan.verbs.length === 0 ? undefined : openAiTools(plan.verbs);
    const ask = (messages: readonly PromptMessage[]) =>
      openFirstAnswering(providerOrder(deps.providers, turn.bot), messages, {
        signal: controller.signal,
        fetch: fetchUpstream,
        firstTokenMs: options.firstTokenMs,
        answerTokens: options.answerTokens,
        ...(tools === undefined ? {} : { tools }),
        onFallover: (error) => {
          log({
            event: 'provider.fell-over',
            provider: error.provider,
            failure: error.failure,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.code === undefined ? {} : { code: error.code }),
          });
        },
      });
    const open = await ask(prompt);
    const limitsFor = (model: string, spentUsd: number) => {
      const price = priceOf(deps.prices, model);
      const left = spendUsd === undefined ? undefined : Math.max(0, spendUsd - spentUsd);
      return { promptTokens, idleMs: options.upstreamIdleMs, ...(left === undefined ? {} : { spendUsd: left }), ...(price === undefined ? {} : { price }) };
    };
    const pieces = plan === undefined || tools === undefined
      ? limitedAnswer(open, { controller, ...limitsFor(open.model, 0) })
      : actingAnswer(open, prompt, plan.acting, {
          controller,
          next: ask,
          limits: limitsFor,
          costOf: (model, usage) => costUsd(priceOf(deps.prices, model), usage),
          sleep,
        });
    return { provider: open.provider.name, model: open.model, pieces, promptTokens, bought: true };
  }

  /**
   * Sends what `sending` resolves to as the client asked. A stream's headers go out at once, while
   * the provider is still being asked, so that the first token is one write on a response the
   * client already holds; what fails before it is said in the stream, as an error in OpenAI's shape
   * (`failureOf`), and the provider that answered is named in every chunk. One completion waits
   * for the whole answer and is an HTTP error when it fails. `settle` runs once the answer has
   * ended and before `[DONE]`; `after` once it has been sent.
   */
  async function respond(c: Context, request: ChatRequest, sending: Promise<Sending | null>, onClientGone: () => void = () => undefined): Promise<Response> {
    if (!request.stream) {
      const sent = await sending;
      if (sent === null) return new Response(null, { status: 499 });
      const { answer, settle = settledFree, after } = sent;
      const header = answerHeader(answer);
      c.header('x-confab-provider', header.provider);
      let text = '';
      const settling = settlingOnce(answer, settle, onClientGone);
      try {
        let next = await answer.pieces.next();
        while (!next.done) {
          // A whole completion has no place for the door's own events; its text is all.
          if (typeof next.value === 'string') text += next.value;
          next = await answer.pieces.next();
        }
        const usage = await settling.once(next.value);
        after?.(next.value, text);
        return c.json(completionOf(header, text, finishReason(next.value.ended), usage));
      } finally {
        await settling.ifNot(text);
      }
    }

    return streamSSE(c, async (stream) => {
      stream.onAbort(onClientGone);
      let sent: Sending | null;
      try {
        sent = await sending;
      } catch (error) {
        await sayFailure(stream, error);
        return;
      }
      if (sent === null) return;
      const { answer, settle = settledFree, after } = sent;
      const header = answerHeader(answer);
      let text = '';
      const settling = settlingOnce(answer, settle, onClientGone);
      try {
        let next = await answer.pieces.next();
        let role = true;
        while (!next.done) {
          const piece = next.value;
          if (typeof piece === 'string') {
            text += piece;
            await stream.writeSSE({ data: chunkOf(header, role ? { role: 'assistant', content: piece } : { content: piece }, null) });
            role = false;
          } else {
            await stream.writeSSE({ event: piece.event, data: JSON.stringify(piece.data) });
          }
          next = await answer.pieces.next();
        }
        const result = next.value;
        await stream.writeSSE({ data: chunkOf(header, role ? { role: 'assistant', content: '' } : {}, finishReason(result.ended)) });
        const usage = await settling.once(result);
        if (request.includeUsage) await stream.writeSSE({ data: usageChunkOf(header, usage) });
        await stream.writeSSE({ data: '[DONE]' });
        await stream.close();
        after?.(result, text);
      } catch (error) {
        await sayFailure(stream, error);
      } finally {
        await settling.ifNot(text);
      }
    });
  }

  /** What every chunk or completion of `answer` shares. */
  function answerHeader(answer: Answer): AnswerHeader {
    return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(deps.clock() / 1000), model: answer.model, provider: answer.provider ?? 'none' };
  }

  /**
   * `settle`, run once: by `once` when the answer ends, or by `ifNot` however else it ends — a
   * client gone mid-write, a broken piece, a thrown error — so its hold is never left standing for
   * the rest of the window.
   */
  function settlingOnce(answer: Answer, settle: (result: AnswerResult) => Promise<TokenUsage>, onClientGone: () => void) {
    let settled = false;
    return {
      once(result: AnswerResult): Promise<TokenUsage> {
        settled = true;
        return settle(result);
      },
      async ifNot(text: string): Promise<void> {
        if (settled) return;
        settled = true;
        onClientGone();
        await answer.pieces.return({ ended: 'aborted', modelChars: text.length }).catch(() => undefined);
        await settle({ ended: 'aborted', modelChars: text.length }).catch(() => undefined);
      },
    };
  }

  /**
   * An error as the door answers it, in OpenAI's shape: its HTTP status for a response not yet
   * begun, and the body, which a stream already under way sends as an event. What is not the
   * request's fault nor a provider's is logged by name and said only as a server error.
   */
  function failureOf(error: unknown): { status: ContentfulStatusCode; body: OpenAiError } {
    if (error instanceof ChatRequestError) {
      return { status: error.status, body: errorOf(error.message, 'invalid_request_error', error.param, error.status === 413 ? 'request_too_large' : null) };
    }
    if (error instanceof HTTPException) {
      const status = error.status;
      if (status === 401) return { status, body: errorOf(error.message || 'The grant was refused.', 'authentication_error', null, 'invalid_grant') };
      if (status === 404) return { status, body: errorOf(error.message, 'not_found_error', null, 'bot_not_found') };
      return { status, body: errorOf(error.message, status < 500 ? 'invalid_request_error' : 'server_error') };
    }
    if (error instanceof ProviderError) {
      return {
        status: 502,
        body: errorOf(`${error.message} The request was not sent to another provider, since it would fail there the same way.`, 'api_error', null, 'provider_refused_request'),
      };
    }
    if (error instanceof NoProviderAnswered) return { status: 502, body: errorOf(error.message, 'api_error', null, 'no_provider_answered') };
    log({ event: 'door.failed', error: nameOf(error) });
    return { status: 500, body: errorOf('Something went wrong on the server.', 'server_error') };
  }

  /** `error` as one event of a stream under way, when the client is still there to read it; no `[DONE]` follows. */
  function sayFailure(stream: SSEStreamingApi, error: unknown): Promise<void> {
    return stream.writeSSE({ data: JSON.stringify(failureOf(error).body) });
  }

  /** The stand-in's text, word by word, as an answer. */
  async function* standIn(text: string, signal: AbortSignal): AnswerPieces {
    let modelChars = 0;
    for await (const word of wordByWord(text, options.standInWordMs, sleep, signal)) {
      modelChars += word.length;
      yield word;
    }
    if (!signal.aborted) return { ended: 'stop', modelChars };
    if (signal.reason instanceof AnswerStop && signal.reason.why !== 'client') {
      const why = signal.reason.why;
      yield ` ${CLOSING_SENTENCES[why]}`;
      return { ended: why, modelChars };
    }
    return { ended: 'aborted', modelChars };
  }

  app.onError((error, c) => {
    const { status, body } = failureOf(error);
    return c.json(body, status);
  });

  return app;
}

const CONVERSATION_KEY = /^[A-Za-z0-9:_-]{1,128}$/;

/** The page's conversation key, when it is well formed. */
function conversationKeyOf(header: string | undefined): string | undefined {
  return header !== undefined && CONVERSATION_KEY.test(header) ? header : undefined;
}

/**
 * An IANA time zone the runtime knows, as it names it, or `UTC`. Asked of `Intl` every turn and
 * kept nowhere: a cache keyed by what the page sent grew with every case spelling of a zone.
 */
export function timeZoneOf(header: string | undefined): string {
  if (header === undefined || header === '' || header.length > 64) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en', { timeZone: header }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
