/**
 * The chat door: `POST /chat/completions` in OpenAI's chat-completions shape, for a caller holding
 * a grant. Mount it with `app.route('/v1', chatDoor(deps))`. The route alone: read the request,
 * admit the turn, answer it, respond — each step in a file of its own (`README.md` draws the path).
 *
 * The grant says which bot and whose ceilings, the bot file says the prompt and the model, and the
 * client's user and assistant turns are the conversation. Nothing is bought unless `live` is set
 * and a provider is configured; until then a scripted stand-in answers and says why.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyCap } from '../bodyCap';
import { refusalSentence } from '../words/refusalWords';
import { refusal, requestWordsOf } from '../words/requestWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import { admit, settleTurn } from './admission';
import type { Refused } from './admission';
import { shippedWords } from '../words/loadWords';
import { LANGUAGE_HEADER } from '../words/turnWords';
import { AnswerStop, closingSentence, sentenceAnswer } from './answer';
import { answerSource } from './answerSource';
import { lastQuestion, parseChatRequest } from './chatRequest';
import type { ChatRequest } from './chatRequest';
import { doorOptionsOf, REFUSAL_MODEL, REFUSED_HEADER } from './doorTypes';
import type { Answer, AnswerSource, DoorBot, DoorDeps, DoorGrant, DoorLogLine, DoorTurn, Ending, Sending } from './doorTypes';
import { ChatRequestError, nameOf } from './errors';
import { errorOf } from './wire';
import { responder } from './respond';
import { realSleep, standInReason } from './standIn';
import { conversationKeyOf, timeZoneOf } from './turnHeaders';
import { IDEMPOTENCY_HEADER, TURN_HEADER, turnIdOf } from './turnId';

const stderrLog = (line: DoorLogLine): void => {
  console.error(JSON.stringify(line));
};

/** A refusal in the turn's words, when the ledger said what was reached; else as the ledger said it. */
function refusalOf(refused: Refused, words: Words): string {
  const reached = refused.ceiling;
  if (reached === undefined) return refused.sentence;
  const { window, kind, ceiling, freesAtMs, nowMs } = reached;
  return refusalSentence({ window, kind, ceiling, freesAt: freesAtMs === null ? null : new Date(freesAtMs) }, new Date(nowMs), refused.by === 'site' ? 'site' : 'bot', words);
}

export function chatDoor<G extends DoorGrant, B extends DoorBot>(deps: DoorDeps<G, B>): Hono {
  const options = doorOptionsOf(deps);
  const log = deps.log ?? stderrLog;
  const context = deps.context ?? ((turn: DoorTurn<G, B>) => Promise.resolve(turn.messages.map((message) => ({ ...message }))));
  // The global fetch (undici): it keeps connections alive, and never sends a request a second time.
  const answers = answerSource({ providers: deps.providers, prices: deps.prices, options, fetch: deps.fetch ?? fetch, sleep: deps.sleep ?? realSleep, log });
  const { respond, failureOf } = responder({ clock: deps.clock, log });
  const wordsFor = deps.wordsFor ?? ((_bot: B, language: string | undefined) => shippedWords().wordsIn(language ?? 'en'));

  /** The grant, the request and the bot of a call, or the HTTP error that refuses it. */
  async function readTurn(c: Context): Promise<{ grant: G; request: ChatRequest; bot: B }> {
    const grant = await deps.authorize(c);
    if (deps.running?.stopping === true) throw refusal(c, 503, 'requests.restarting');
    const words = requestWordsOf(c);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      throw new ChatRequestError(say(words, 'requests.not-json'), null, 400, { cause: error });
    }
    const request = parseChatRequest(body, words);
    const bot = deps.botOf(grant.bot);
    if (bot === undefined) throw refusal(c, 404, 'requests.bot-gone');
    return { grant, request, bot };
  }

  const app = new Hono();
  // The body's cap, declared here and kept by the app's one body door (server/bodyCap.ts), refused in OpenAI's shape.
  const cap = bodyCap(options.bodyBytesMax, (c, { status, sentence }) =>
    c.json(errorOf(sentence, 'invalid_request_error', null, status === 413 ? 'request_too_large' : null), status),
  );

  app.post('/chat/completions', cap, async (c) => {
    const { grant, request, bot } = await readTurn(c);
    const conversationKey = conversationKeyOf(c.req.header('x-confab-conversation'));
    const turnId = turnIdOf(c.req.header(TURN_HEADER), c.req.header(IDEMPOTENCY_HEADER), requestWordsOf(c));
    const turn: DoorTurn<G, B> = { grant, bot, messages: request.messages, conversationKey, words: wordsFor(bot, c.req.header(LANGUAGE_HEADER)) };
    const plan = deps.acting === undefined
      ? Promise.resolve(undefined)
      : deps.acting({ ...turn, conversationKey, timeZone: timeZoneOf(c.req.header('x-confab-time-zone')), language: c.req.header(LANGUAGE_HEADER), turnId });
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
      const refusal: Answer = { provider: null, model: REFUSAL_MODEL, pieces: sentenceAnswer(refusalOf(admitted, turn.words), 'refused'), promptTokens: 0, bought: false };
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
    const settle = async (answer: Answer | undefined, ending: Ending) => {
      clearTimeout(timer);
      clientSignal.removeEventListener('abort', onClientGone);
      try {
        return await settleTurn(admitted, answer, ending, { prices: deps.prices, log, startedMs, nowMs: deps.clock() });
      } finally {
        finished?.();
      }
    };

    /**
     * What will be sent, once it can be had: the provider's answer once its first token is in; a
     * sentence when a limit ran out before a word; null when the client left. Rejects as asking
     * the providers did.
     */
    const answering = async (): Promise<Sending | null> => {
      let answer: Answer;
      try {
        answer = await answers.start(turn, source, controller, spend, await plan);
      } catch (error) {
        const why = controller.signal.reason instanceof AnswerStop ? controller.signal.reason.why : undefined;
        if (why === undefined || why === 'client') {
          await settle(undefined, { ended: why === 'client' ? 'aborted' : 'failed', modelChars: 0 });
          if (why === 'client') return null;
          throw error;
        }
        // A limit ran out before the first token: it is said, and nothing was answered.
        const cut: Answer = { provider: null, model: REFUSAL_MODEL, pieces: sentenceAnswer(closingSentence(turn.words, why), why), promptTokens: 0, bought: false };
        return { answer: cut, settle: (result) => settle(undefined, { ...result, modelChars: 0 }) };
      }
      const { afterAnswer } = deps;
      const provider = answer.provider;
      return {
        answer,
        settle: (result) => settle(answer, result),
        after: (result, text) => {
          if (afterAnswer === undefined || provider === null || result.ended === 'aborted') return;
          afterAnswer({ ...turn, question: lastQuestion(request.messages), answer: text, provider, ended: result.ended }).catch((error: unknown) => {
            log({ event: 'after-answer.failed', error: nameOf(error) });
          });
        },
      };
    };
    return respond(c, request, answering(), onClientGone);
  });

  app.onError((error, c) => {
    const { status, body } = failureOf(error, requestWordsOf(c));
    return c.json(body, status);
  });

  return app;
}
