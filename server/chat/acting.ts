/**
 * A turn that may act: the model is asked with the verbs in scope as `tools`; text streams on as
 * it comes; when the model calls verbs, the executor runs them, every call id is answered, and the
 * model is asked again with the results — at most `maxModelCalls` times and `maxVerbCalls` verbs a
 * turn. After a verb that changed something succeeds, its app's narrators add the consequence
 * ("That's 5 things on your shopping list."), said after the model's own words — once per app, as
 * things stand after the turn's last change. A `confirm` verb is not run: it is kept as a
 * pending action, its question ends the turn, and only the person's page can approve it.
 *
 * Writes carry idempotency keys the host derives from the turn's id and the call — the model never
 * sees them — so a retried turn never adds milk twice, and milk said again is added again. A turn
 * that was talked over starts no new write. Each model step is kept under the turn's key as it
 * ends (`steps`), and a retry replays the kept step — says its words again and acts on its calls —
 * without asking the model: a model that would word it differently the second time is never asked,
 * so it cannot write twice. Only a step no try finished is asked anew.
 *
 * The calls of one step to a verb that counts per turn (`gather`: `memory.forget`) run as one call,
 * before any of them runs alone, so the step asks once, naming everything they would do.
 */
import { createHash } from 'node:crypto';
import { DOOR_EVENTS } from '../../common/acting/protocol';
import { forModel } from '../../common/modelText';
import type { ModelText } from '../../common/modelText';
import type { PendingActionEvent, VerbRanEvent } from '../../common/acting/protocol';
import { toolContent } from '../outside/fence';
import { heardSentence } from '../verbs/errors';
import { digestOf } from '../verbs/verbCalls';
import type { Executor, Outcome, TurnTaint } from '../verbs/executor';
import { appOf } from '../verbs/registry';
import type { Registry } from '../verbs/registry';
import { verbNameOf } from '../verbs/project';
import type { Caller } from '../verbs/verb';
import { say } from '../words/words';
import type { Words } from '../words/words';
import { AnswerStop, closingSentence, limitedAnswer } from './answer';
import type { AnswerPieces, AnswerResult, DoorEvent, LimitOptions } from './answer';
import type { TokenUsage } from './prices';
import { ToolCallAccumulator } from './toolCalls';
import type { ToolCall } from './toolCalls';
import type { OpenUpstream, PromptMessage } from './upstream';
import type { ClaimedStep, TurnStep } from '../db/turnSteps';

/** What the model is told of a call not run because the turn's verb calls ran out. */
const VERB_CALLS_SPENT = forModel('Not run: this turn has used all the verb calls it may make.');
/** What the model is told of a call not run because the turn asked the person a question first. */
const WAITING_FOR_ANSWER = forModel('Not run: the turn is waiting for the person to answer a question first.');

/** How many verb calls one turn may make. */
const VERB_CALLS_MAX = 8;
/** How long a verb may run before the filler line is said, in ms. */
const FILLER_MS = 700;

/** An answer from the model (a provider's, or the stand-in's) that has started. */
export type OpenModel = Pick<OpenUpstream, 'events' | 'model'>;

export interface TurnActing {
  executor: Executor;
  /** The verbs the model was offered; no other can run. */
  scope: ReadonlySet<string>;
  /** Verbs the model was not offered that are refused as nonexistent (a skill's, before it is opened). */
  hidden?: ReadonlySet<string>;
  caller: Caller;
  /** The page's key for the conversation, if it sent one. */
  conversationKey: string | undefined;
  /**
   * A digest naming this turn (`turnKeyOf` over the page's turn id, person, bot and conversation):
   * the same on a retry of it, new for anything said anew, whatever the words.
   */
  turnKey: string;
  /** Most model calls in the turn (the bot's `limits.steps`). */
  maxModelCalls: number;
  /** Default `VERB_CALLS_MAX`. */
  maxVerbCalls?: number;
  /** Default `FILLER_MS`. */
  fillerMs?: number;
  /**
   * What the door says in its own name this turn, in the person's language: the filler
   * (`acting.filler`, once a turn when a verb keeps them waiting past `fillerMs`), and the endings.
   */
  words: Words;
  /** Keeps a `confirm` verb's call pending for the person to answer; the event the page is sent. */
  keepPending: (call: { verb: string; input: unknown }) => Promise<PendingActionEvent>;
  /**
   * Where this turn's model steps are kept under its key (`turn_steps`): each finished step is
   * claimed before any of its calls runs, and a retry gets the first try's step back — so the
   * calls that run, and their keys, are the first try's whatever the model says the second time.
   */
  steps: TurnStepStore;
}

/** A turn's recorded model steps (`server/db/turnSteps.ts`), under its turn key. */
interface TurnStepStore {
  /** Records `said` as step `step` (from 1) unless a try of the turn recorded it first; answers the step as recorded, and whether this try recorded it. */
  claim: (step: number, said: TurnStep) => Promise<ClaimedStep>;
  /** Step `step` as a try of the turn recorded it; undefined when none has yet. */
  recorded: (step: number) => Promise<TurnStep | undefined>;
}

/** A model step a try of this turn already recorded: said again and acted on as it was, and the model not asked. */
export interface KeptStep {
  kept: TurnStep;
}

export interface ActingOptions {
  /** The turn's signal: the client leaving (barge-in), or a limit. */
  controller: AbortController;
  /** The model's next answer to `messages`. Rejects as the first call's opening would. */
  next: (messages: readonly PromptMessage[]) => Promise<OpenModel>;
  /** Per-model-call limits (spend is checked per call against what is left). */
  limits: (model: string, spentUsd: number) => Omit<LimitOptions, 'controller' | 'toolCalls' | 'words'>;
  /** USD a call's usage cost, for what is left of the answer's `spend`. */
  costOf: (model: string, usage: TokenUsage) => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The idempotency key of one write in a turn: the turn, the verb, its input, and how many times this same call came before in the turn. */
export function callKeyOf(turnKey: string, verb: string, input: unknown, occurrence: number): string {
  return `turn-${createHash('sha256').update(`${turnKey}\n${digestOf(verb, input)}\n${String(occurrence)}`).digest('hex').slice(0, 40)}`;
}

/**
 * The turn's answer: `first` is the model's first step, asked — or, when a try of this turn recorded
 * it (`acting.steps.recorded(1)`), that step, kept. A kept step costs nothing: it is not asked, and
 * adds no characters or usage to the answer.
 */
export async function* actingAnswer(first: OpenModel | KeptStep, prompt: readonly PromptMessage[], acting: TurnActing, options: ActingOptions): AnswerPieces {
  const { signal } = options.controller;
  const maxVerbCalls = acting.maxVerbCalls ?? VERB_CALLS_MAX;
  const fillerMs = acting.fillerMs ?? FILLER_MS;
  let messages = [...prompt];
  let next: OpenModel | KeptStep = first;
  /**
   * Whether an earlier try of the turn may have recorded the next step: while this try replays
   * kept steps. Once it records a step itself, no earlier try got further, and nothing is read.
   */
  let replaying = 'kept' in first;
  /** How many times the model was asked this turn; 0 when every step was replayed. */
  let asked = 0;
  let modelChars = 0;
  let usage: TokenUsage | undefined;
  let spentUsd = 0;
  /** Whether every model call so far reported its usage, so `spentUsd` is the answer's whole cost. */
  let everyCallCounted = true;
  let verbCalls = 0;
  let fillerSaid = false;
  let lastText = '';
  /**
   * The consequence of each app's changes, by app: a later change's narration replaces an earlier
   * one's, since it describes the state after both ("That's 2 things…", not "1 thing… 2 things…").
   */
  const narration = new Map<string, string[]>();
  const seen = new Map<string, number>();
  /** What this turn has read from outside Confab: the executor marks it, and asks before every write after. */
  const taint: TurnTaint = {};
  /** Text that follows what was said, with a space between sentences. */
  const joined = (text: string): string => (lastText === '' || /\s$/.test(lastText) ? text : ` ${text}`);
  const said = (text: string): string => {
    const piece = joined(text);
    lastText = piece;
    return piece;
  };
  // Nothing asked of the model (every step replayed) is nothing spent, not an estimate from the characters.
  const spent = (): Pick<AnswerResult, 'usage' | 'costUsd'> =>
    usage === undefined ? (asked === 0 ? { usage: { promptTokens: 0, completionTokens: 0 }, costUsd: 0 } : {}) : { usage, ...(everyCallCounted ? { costUsd: spentUsd } : {}) };
  const ended = (result: AnswerResult['ended']): AnswerResult => ({ ended: result, modelChars, ...spent() });
  /** The turn's signal has aborted: a limit's closing sentence is said, a client gone is not. */
  const stopped = function* (): Generator<string, AnswerResult> {
    if (signal.reason instanceof AnswerStop && signal.reason.why !== 'client') {
      yield said(closingSentence(acting.words, signal.reason.why));
      return ended(signal.reason.why);
    }
    return ended('aborted');
  };
  /** A step's first words after what was said (a filler line, an earlier step) are a new sentence. */
  const stepStart = (text: string): string => (lastText !== '' && !/\s$/.test(lastText) && !/^\s/.test(text) ? ` ${text}` : text);

  for (let modelCall = 1; ; modelCall += 1) {
    let kept: TurnStep;
    if ('kept' in next) {
      // A step a try of this turn recorded: said again word for word, its calls acted on, the model not asked.
      if (signal.aborted) return yield* stopped();
      kept = next.kept;
      if (kept.text !== '') {
        const piece = stepStart(kept.text);
        lastText = piece;
        yield piece;
      }
    } else {
      const open = next;
      asked += 1;
      const calls = new ToolCallAccumulator();
      let text = '';
      const pieces = limitedAnswer(open, { ...options.limits(open.model, spentUsd), controller: options.controller, toolCalls: calls, words: acting.words });
      let step = await pieces.next();
      while (!step.done) {
        const piece = text === '' ? stepStart(step.value) : step.value;
        text += step.value;
        lastText = piece;
        yield piece;
        step = await pieces.next();
      }
      const result = step.value;
      modelChars += result.modelChars;
      if (result.usage !== undefined) {
        usage = { promptTokens: (usage?.promptTokens ?? 0) + result.usage.promptTokens, completionTokens: (usage?.completionTokens ?? 0) + result.usage.completionTokens };
        spentUsd += options.costOf(open.model, result.usage);
      } else {
        everyCallCounted = false;
      }
      if (result.ended !== 'stop' && result.ended !== 'length') return { ...result, modelChars, ...spent() };
      // Two tries of the turn at once: the one that recorded the step first is the one acted on.
      const claimed = await acting.steps.claim(modelCall, { text, toolCalls: calls.calls() });
      replaying = !claimed.mine;
      kept = claimed;
    }
    const toolCalls: ToolCall[] = kept.toolCalls;
    if (toolCalls.length === 0) break;
    if (modelCall >= acting.maxModelCalls) {
      yield said(say(acting.words, 'endings.out-of-steps'));
      break;
    }

    const answers: PromptMessage[] = [];
    let pending: PendingActionEvent | undefined;
    // Calls of a verb that counts per turn, run as one at the first of them; only those the turn may still make.
    const gathered = gatheredCalls(acting.executor.registry, toolCalls.slice(0, Math.max(0, maxVerbCalls - verbCalls)), (verb) => acting.scope.has(verb) && acting.hidden?.has(verb) !== true);
    /** How the first call of each gathered group came out, for the rest of its calls. */
    const groupOutcome = new Map<number, { ok: boolean; error?: string }>();
    for (const [index, call] of toolCalls.entries()) {
      if (signal.aborted) return ended('aborted');
      const group = gathered.get(index);
      if (group !== undefined && group.first !== index) {
        verbCalls += 1;
        const first = groupOutcome.get(group.first);
        answers.push(
          toolAnswer(
            call,
            first === undefined
              ? { ok: false, error: 'not_run', message: WAITING_FOR_ANSWER }
              : { ...first, message: forModel(`Run as one with call ${toolCalls[group.first]?.id ?? ''}, with every call of this verb in this step: that call's answer is this one's too.`) },
          ),
        );
        continue;
      }
      if (pending !== undefined) {
        answers.push(toolAnswer(call, { ok: false, error: 'not_run', message: WAITING_FOR_ANSWER }));
        continue;
      }
      if (verbCalls >= maxVerbCalls) {
        answers.push(toolAnswer(call, { ok: false, error: 'not_run', message: VERB_CALLS_SPENT }));
        continue;
      }
      verbCalls += 1;
      const verb = verbNameOf(call.name);
      const input = group === undefined ? argumentsOf(call) : group.input;
      if (input === undefined) {
        answers.push(toolAnswer(call, { ok: false, error: 'invalid_input', message: forModel('The arguments were not a JSON object.') }));
        yield event(DOOR_EVENTS.verb, { verb, ok: false, code: 'invalid_input' } satisfies VerbRanEvent);
        continue;
      }
      const identity = digestOf(verb, input);
      const occurrence = seen.get(identity) ?? 0;
      seen.set(identity, occurrence + 1);
      const running = acting.executor.execute({
        verb,
        input,
        caller: acting.caller,
        scope: acting.scope,
        ...(acting.hidden === undefined ? {} : { hidden: acting.hidden }),
        idempotencyKey: callKeyOf(acting.turnKey, verb, input, occurrence),
        ...(acting.conversationKey === undefined ? {} : { conversationKey: acting.conversationKey }),
        signal,
        turn: taint,
      });
      if (!fillerSaid) {
        const waited = new AbortController();
        const late = await Promise.race([running.then(() => false), options.sleep(fillerMs, AbortSignal.any([signal, waited.signal])).then(() => !signal.aborted)]);
        waited.abort();
        if (late) {
          fillerSaid = true;
          yield said(say(acting.words, 'acting.filler'));
        }
      }
      const outcome: Outcome = await running;
      if (group !== undefined) groupOutcome.set(index, outcome.ok ? { ok: true } : { ok: false, error: outcome.error.code });
      if (aborted(signal)) return ended('aborted');
      if (outcome.ok) {
        yield event(DOOR_EVENTS.verb, { verb, ok: true } satisfies VerbRanEvent);
        // An outside app's answer reaches the model fenced, as data from a named source.
        answers.push(toolAnswer(call, { ok: true, output: outcome.output }, outcome.verb.remote === true ? appOf(outcome.verb.name) : undefined));
        // A read changed nothing, so it has no consequence to narrate: the model says what it found.
        if (outcome.verb.risk !== 'read') {
          const app = verb.slice(0, verb.indexOf('.'));
          narration.delete(app);
          narration.set(app, await acting.executor.narrate({ verb, input: outcome.input, output: outcome.output }, acting.caller, signal));
        }
      } else if (outcome.error.code === 'confirmation_required' && outcome.verb !== undefined) {
        pending = await acting.keepPending({ verb: outcome.verb.name, input: outcome.input });
        yield event(DOOR_EVENTS.confirm, pending);
        answers.push(toolAnswer(call, { ok: false, error: 'confirmation_required', message: forModel('The person has been asked to confirm this in their page; it has not run.') }));
      } else {
        yield event(DOOR_EVENTS.verb, { verb, ok: false, code: outcome.error.code } satisfies VerbRanEvent);
        answers.push(toolAnswer(call, { ok: false, error: outcome.error.code, message: forModel(heardSentence(outcome.error, acting.words)) }));
      }
    }
    if (pending !== undefined) {
      for (const sentence of [...narration.values()].flat()) yield said(sentence);
      yield said(pending.question);
      return ended('stop');
    }
    messages = [
      ...messages,
      { role: 'assistant', content: kept.text === '' ? null : kept.text, tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) },
      ...answers,
    ];
    const recorded = replaying ? await acting.steps.recorded(modelCall + 1) : undefined;
    if (recorded !== undefined) {
      next = { kept: recorded };
      continue;
    }
    try {
      next = await options.next(messages);
    } catch {
      if (signal.aborted) return yield* stopped();
      yield said(closingSentence(acting.words, 'broke'));
      return ended('broke');
    }
  }
  for (const sentence of [...narration.values()].flat()) yield said(sentence);
  // A turn that ended with no word at all still answers: silence reads as a broken page.
  if (lastText === '') yield said(say(acting.words, 'endings.nothing-to-add'));
  return ended('stop');
}

/** Calls of one step run as one: by index, the first call's index and the input gathered from them all. */
type GatheredCalls = Map<number, { first: number; input: unknown }>;

/**
 * The calls among `calls` (one step's, those the turn may still make) to a verb that `gather`s, in
 * `scope`, asked more than once with arguments its schema takes: each group's inputs gathered into
 * one (`Verb.gather`), run once at its first call, so the step is counted — and asked about — whole.
 */
function gatheredCalls(registry: Pick<Registry, 'verb'>, calls: readonly ToolCall[], inScope: (verb: string) => boolean): GatheredCalls {
  const byVerb = new Map<string, { index: number; input: unknown }[]>();
  for (const [index, call] of calls.entries()) {
    const name = verbNameOf(call.name);
    const verb = registry.verb(name);
    if (verb?.gather === undefined || !inScope(name)) continue;
    const parsed = verb.input.safeParse(argumentsOf(call));
    if (!parsed.success) continue;
    byVerb.set(name, [...(byVerb.get(name) ?? []), { index, input: parsed.data }]);
  }
  const gathered: GatheredCalls = new Map();
  for (const [name, group] of byVerb) {
    const gather = registry.verb(name)?.gather;
    const first = group[0];
    if (gather === undefined || first === undefined || group.length < 2) continue;
    const input = gather(group.map((call) => call.input));
    for (const { index } of group) gathered.set(index, { first: first.index, input });
  }
  return gathered;
}

/** Read afresh: a signal may abort while a call is awaited. */
function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function event(name: string, data: unknown): DoorEvent {
  return { event: name, data };
}

/** A call's answer as the model reads it: the result, or the code and a sentence for the model to say again in its own words. */
function toolAnswer(call: ToolCall, content: { ok: boolean; error?: string; message?: ModelText; output?: unknown }, outsideApp?: string): PromptMessage {
  return { role: 'tool', tool_call_id: call.id, content: toolContent(content, outsideApp) };
}

/** The call's arguments as an object; an empty string is no arguments; anything else not an object is undefined. */
function argumentsOf(call: ToolCall): Record<string, unknown> | undefined {
  if (call.arguments.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

