/**
 * Where an answer comes from: the scripted stand-in while nothing may be bought, or the first
 * provider to send a token, given the prompt and the context — with the acting loop when the turn
 * may use verbs. Either way it is an `Answer`: its pieces, who answered, whether it was bought.
 */
import { openAiTools } from '../verbs/project';
import { actingAnswer } from './acting';
import type { KeptStep, OpenModel } from './acting';
import { AnswerStop, closingSentence, limitedAnswer } from './answer';
import type { AnswerPieces } from './answer';
import { lastQuestion } from './chatRequest';
import type { ChatMessage } from './chatRequest';
import type { Answer, AnswerSource, DoorBot, DoorGrant, DoorLogLine, DoorOptions, DoorTurn, TurnPlan } from './doorTypes';
import { STAND_IN } from './doorTypes';
import { openFirstAnswering } from './fallover';
import { costUsd, estimateTokens, priceOf } from './prices';
import type { PriceTable } from './prices';
import { STAND_IN_MODEL, standInAnswer, wordByWord } from './standIn';
import type { Sleep } from './standIn';
import type { Words } from '../words/words';
import { standInModel } from './standInModel';
import { providerOrder } from './upstream';
import type { PromptMessage, Provider } from './upstream';

export interface SourceDeps {
  providers: readonly Provider[];
  prices: PriceTable;
  options: DoorOptions;
  fetch: typeof fetch;
  sleep: Sleep;
  log: (line: DoorLogLine) => void;
}

/** Starts answers from `deps`' providers, or the stand-in's. */
export function answerSource(deps: SourceDeps) {
  /**
   * The answer to `turn`: the stand-in's while nothing may be bought, else the first provider's to
   * send a token, limited by `spendUsd`. Rejects as `openFirstAnswering` does, or when gathering the
   * context did.
   */
  async function start(
    turn: DoorTurn<DoorGrant, DoorBot>,
    source: AnswerSource,
    controller: AbortController,
    spendUsd: number | undefined,
    plan: TurnPlan | undefined,
  ): Promise<Answer> {
    if ('standIn' in source) {
      if (plan === undefined) {
        const text = standInAnswer(source.standIn, lastQuestion(turn.messages), turn.words);
        return { provider: STAND_IN, model: STAND_IN_MODEL, pieces: standIn(text, controller.signal, turn.words), promptTokens: 0, bought: false };
      }
      const why = source.standIn;
      const model = (messages: readonly PromptMessage[]) =>
        standInModel(messages, { reason: why, verbs: plan.verbs, skills: plan.skills, words: turn.words, language: plan.acting.caller.language, wordMs: deps.options.standInWordMs, sleep: deps.sleep, signal: controller.signal });
      // A retried turn replays the first step its first try recorded, and nothing is asked for it.
      const kept = await plan.acting.steps.recorded(1);
      const pieces = actingAnswer(kept === undefined ? model(turn.messages) : { kept }, turn.messages, plan.acting, {
        controller,
        next: (messages) => Promise.resolve(model(messages)),
        limits: () => ({ promptTokens: 0 }),
        costOf: () => 0,
        sleep: deps.sleep,
      });
      return { provider: STAND_IN, model: STAND_IN_MODEL, pieces, promptTokens: 0, bought: false };
    }
    const { prompt: system } = turn.bot;
    const tools = plan === undefined || plan.verbs.length === 0 ? undefined : openAiTools(plan.verbs);
    // A retried acting turn whose first try recorded its first step replays it: no provider is asked for it.
    const [context, kept] = await Promise.all([source.context, plan === undefined || tools === undefined ? undefined : plan.acting.steps.recorded(1)]);
    const prompt: ChatMessage[] = [...(system === '' ? [] : [{ role: 'system' as const, content: system }]), ...context];
    const promptTokens = estimateTokens(prompt.reduce((sum, message) => sum + message.content.length, 0));
    const ask = (messages: readonly PromptMessage[]) =>
      openFirstAnswering(providerOrder(deps.providers, turn.bot), messages, {
        signal: controller.signal,
        fetch: deps.fetch,
        firstTokenMs: deps.options.firstTokenMs,
        answerTokens: deps.options.answerTokens,
        ...(tools === undefined ? {} : { tools }),
        onFallover: (error) => {
          deps.log({
            event: 'provider.fell-over',
            provider: error.provider,
            failure: error.failure,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.code === undefined ? {} : { code: error.code }),
          });
        },
      });
    const limitsFor = (model: string, spentUsd: number) => {
      const price = priceOf(deps.prices, model);
      const left = spendUsd === undefined ? undefined : Math.max(0, spendUsd - spentUsd);
      return { promptTokens, idleMs: deps.options.upstreamIdleMs, words: turn.words, ...(left === undefined ? {} : { spendUsd: left }), ...(price === undefined ? {} : { price }) };
    };
    if (plan === undefined || tools === undefined) {
      const open = await ask(prompt);
      return { provider: open.provider.name, model: open.model, pieces: limitedAnswer(open, { controller, ...limitsFor(open.model, 0) }), promptTokens, bought: true };
    }
    const acting = (first: OpenModel | KeptStep) =>
      actingAnswer(first, prompt, plan.acting, {
        controller,
        next: ask,
        limits: limitsFor,
        costOf: (model, usage) => costUsd(priceOf(deps.prices, model), usage),
        sleep: deps.sleep,
      });
    if (kept !== undefined) {
      // Named as the provider that would have been asked first; it costs only the later steps it asks of any.
      const [attempt] = providerOrder(deps.providers, turn.bot);
      return { provider: attempt?.provider.name ?? null, model: attempt?.model ?? STAND_IN_MODEL, pieces: acting({ kept }), promptTokens, bought: true };
    }
    const open = await ask(prompt);
    return { provider: open.provider.name, model: open.model, pieces: acting(open), promptTokens, bought: true };
  }

  /** The stand-in's text, word by word, as an answer. */
  async function* standIn(text: string, signal: AbortSignal, words: Words): AnswerPieces {
    let modelChars = 0;
    for await (const word of wordByWord(text, deps.options.standInWordMs, deps.sleep, signal)) {
      modelChars += word.length;
      yield word;
    }
    if (!signal.aborted) return { ended: 'stop', modelChars };
    if (signal.reason instanceof AnswerStop && signal.reason.why !== 'client') {
      const why = signal.reason.why;
      yield ` ${closingSentence(words, why)}`;
      return { ended: why, modelChars };
    }
    return { ended: 'aborted', modelChars };
  }

  return { start };
}
