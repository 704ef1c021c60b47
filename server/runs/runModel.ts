/**
 * One model call of a run: the reply to the conversation its steps make. Two sources: a run that
 * carries a script (no model is bought — no key, or `AGENTS_LIVE` unset) is answered from it, one
 * verb call per model step and then the verbs' own stand-in sentences, in the run's language; any
 * other run is answered by the same `OpenModel` stream the door reads (a provider, with fall-over,
 * or the stand-in).
 */
import { ToolCallAccumulator } from '../chat/toolCalls';
import type { OpenModel } from '../chat/acting';
import type { TokenUsage } from '../chat/prices';
import { recognise } from '../chat/standInModel';
import { STAND_IN_MODEL, standInAnswer } from '../chat/standIn';
import type { PromptMessage } from '../chat/upstream';
import { toolNameOf, verbNameOf } from '../verbs/project';
import type { Verb } from '../verbs/verb';
import { BASE_LANGUAGE, shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import type { AskedCall, Run, RunStep, ScriptEntry, ScriptedCall } from './types';
import { toolContent } from '../outside/fence';

interface ModelReply {
  /** The model that answered, as it named itself. */
  model: string;
  /** Its words ('' when it only asked for tools). */
  text: string;
  toolCalls: AskedCall[];
  /** What the call cost, USD. */
  spentUsd: number;
  /** The provider that answered, when one did. */
  provider?: string;
  /** Its tokens, as it reported them. */
  usage?: TokenUsage;
}

/** How a run speaks: in its person's language, else its bot's, with that language's words. */
export interface RunSpeech {
  words: Words;
  /** The language tag the words are in, for what `Intl` words (a list joined with "and"). */
  language: string;
}

export interface RunModel {
  /** The model's next reply; `speech` is how the run speaks (default: the shipped English), for a reply the stand-in words. */
  reply(run: Run, steps: readonly RunStep[], verbs: readonly Verb[], signal: AbortSignal, speech?: RunSpeech): Promise<ModelReply>;
}

/**
 * The run as a conversation with the model: what was asked, then each model call and each tool's
 * answer — an outside app's (a remote verb among `verbs`) fenced as data from a named source.
 */
function runMessages(run: Pick<Run, 'asked'>, steps: readonly RunStep[], verbs: readonly Verb[] = []): PromptMessage[] {
  const messages: PromptMessage[] = [{ role: 'user', content: run.asked }];
  for (const { body } of steps) {
    if (body.kind === 'model' && body.toolCalls.length > 0) {
      messages.push({
        role: 'assistant',
        content: body.text === '' ? null : body.text,
        tool_calls: body.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: toolNameOf(call.verb), arguments: JSON.stringify(call.input ?? {}) } })),
      });
    } else if (body.kind === 'tool') {
      const remote = verbs.some((verb) => verb.name === body.verb && verb.remote === true);
      messages.push({ role: 'tool', tool_call_id: body.callId, content: toolContent(body.outcome, remote ? body.verb.slice(0, body.verb.indexOf('.')) : undefined) });
    }
  }
  return messages;
}

/** "go through my shopping list and …": the list, and what is to be done with each thing on it. */
const GO_THROUGH = /^(?:please )?(?:go|work|run) through (?:my|the|our) (?:(.+?) )?list,? and (?:then )?(.+)$/i;
/** How the clause names the thing in hand. */
const EACH_THING = /\b(?:each|every) (?:thing|item|one)(?: on it)?\b|\b(?:them|each)\b/i;

/**
 * The script the stand-in carries for `asked`: each clause ("…, then …", "… and then …", a new
 * sentence) that a verb's phrasing recognises, in order; "go through my … list and <clause about
 * each thing>" reads the list and then takes the clause once per item. Clauses it does not
 * recognise are left out; an empty script answers with the stand-in's own sentence.
 */
export function scriptFor(asked: string, verbs: readonly Verb[]): ScriptEntry[] {
  const clauses = asked.split(/(?:[.;!?]\s+|,?\s+and then\s+|,\s*then\s+|\s+then\s+)/i).filter((clause) => clause.trim() !== '');
  return clauses.flatMap((clause): ScriptEntry[] => {
    const through = GO_THROUGH.exec(clause.trim().replace(/[.!?]+$/, ''));
    if (through !== null && EACH_THING.test(through[2] ?? '')) {
      const read = recognise(`what's on my ${through[1] ?? 'shopping'} list`, verbs);
      if (read !== undefined) return [{ each: { verb: read.verb.name, input: read.input }, clause: (through[2] ?? '').replace(EACH_THING, '{item}') }];
    }
    const found = recognise(clause, verbs);
    return found === undefined ? [] : [{ verb: found.verb.name, input: found.input }];
  });
}

/** The id the stand-in gives its `n`th call (from 1). */
const scriptCallId = (n: number) => `call_script_${String(n)}`;

/**
 * The calls a script names so far, in order: its plain calls, and for each `each` its read and then,
 * once the read has run (a tool step answered it), the clause for every item the read found.
 */
function scriptedCalls(script: readonly ScriptEntry[], steps: readonly RunStep[], verbs: readonly Verb[]): ScriptedCall[] {
  const calls: ScriptedCall[] = [];
  for (const entry of script) {
    if (!('each' in entry)) {
      calls.push(entry);
      continue;
    }
    calls.push(entry.each);
    const id = scriptCallId(calls.length);
    const read = steps.find((step) => step.body.kind === 'tool' && step.body.callId === id)?.body;
    if (read?.kind !== 'tool') break;
    for (const item of read.outcome.ok ? itemsOf(read.outcome.output) : []) {
      const found = recognise(entry.clause.replace('{item}', item), verbs);
      if (found !== undefined) calls.push({ verb: found.verb.name, input: found.input });
    }
  }
  return calls;
}

/** The first list of words in a read's output (`lists.read`'s `items`). */
function itemsOf(output: unknown): string[] {
  if (typeof output !== 'object' || output === null) return [];
  const list = Object.values(output).find((value): value is unknown[] => Array.isArray(value) && value.every((v) => typeof v === 'string'));
  return (list ?? []) as string[];
}

/** Answers a run from its script: the next scripted call, or, once all have run, what they came to in `speech`. */
export const scriptedModel: RunModel = {
  reply(run, steps, verbs, _signal, speech) {
    const asked = steps.filter((step) => step.body.kind === 'model' && step.body.toolCalls.length > 0).length;
    const call = scriptedCalls(run.script ?? [], steps, verbs)[asked];
    if (call !== undefined) return Promise.resolve({ model: STAND_IN_MODEL, text: '', toolCalls: [{ id: scriptCallId(asked + 1), ...call }], spentUsd: 0 });
    const said = speech ?? { words: shippedWords().wordsIn(BASE_LANGUAGE), language: BASE_LANGUAGE };
    return Promise.resolve({ model: STAND_IN_MODEL, text: scriptedAnswer(run, steps, verbs, said), toolCalls: [], spentUsd: 0 });
  },
};

function scriptedAnswer(run: Pick<Run, 'asked'>, steps: readonly RunStep[], verbs: readonly Verb[], { words, language }: RunSpeech): string {
  const sentences = steps.flatMap(({ body }) => {
    if (body.kind !== 'tool') return [];
    if (!body.outcome.ok) return [body.outcome.message];
    const verb = verbs.find((v) => v.name === body.verb);
    const input = verb?.input.safeParse(body.input);
    const output = verb?.output.safeParse(body.outcome.output);
    return [verb?.standIn !== undefined && input?.success === true && output?.success === true ? verb.standIn.say(output.data, input.data, words, language) : say(words, 'acting.done')];
  });
  return sentences.length === 0 ? standInAnswer('no-provider', run.asked, words) : sentences.join(' ');
}

export interface StreamedModelOptions {
  /** The model's answer to `messages` with `verbs` as its tools: a provider's stream, or the stand-in's. */
  open: (messages: readonly PromptMessage[], verbs: readonly Verb[], signal: AbortSignal, run: Run) => Promise<OpenModel & { provider?: { name: string } }>;
  /** USD a call's usage cost. */
  costOf: (model: string, usage: TokenUsage) => number;
  /**
   * Longest the provider may go silent, in ms, before the call is given up (`RunModelStalled`) and
   * its request aborted: the door's `CONFAB_UPSTREAM_IDLE_S`. Unset: no limit.
   */
  idleMs?: number;
  /** Calls `run` after `delayMs`; answers a way to cancel it. Default: `setTimeout` (tests pass a manual clock's). */
  after?: (delayMs: number, run: () => void) => () => void;
}

/** The provider went silent for longer than `idleMs` during a run's model step. */
export class RunModelStalled extends Error {
  override readonly name = 'RunModelStalled';
  constructor(readonly idleMs: number) {
    super(`The model said nothing for ${String(idleMs)} ms, so the step was given up.`);
  }
}

const realAfter = (delayMs: number, run: () => void): (() => void) => {
  const timer = setTimeout(run, delayMs);
  return () => {
    clearTimeout(timer);
  };
};

/**
 * `promise`, or a rejection with `signal`'s reason as soon as it is aborted — whichever comes
 * first, so a provider that ignores its signal (or a stream that never yields) cannot hold the step.
 */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', stop);
    });
  });
}

/**
 * A run's model calls through an `OpenModel` stream, read to its end — or given up as soon as the
 * step's signal is aborted (cancel, `maxMinutes`) or the provider is silent for `idleMs`: the
 * request's own signal is aborted then too, so its connection does not linger.
 */
export function streamedModel(options: StreamedModelOptions): RunModel {
  const after = options.after ?? realAfter;
  return {
    async reply(run, steps, verbs, stepSignal) {
      const stalled = new AbortController();
      const signal = AbortSignal.any([stepSignal, stalled.signal]);
      let stopIdle: () => void = () => undefined;
      /** Restarts the wait for the provider's next word. */
      const watch = () => {
        stopIdle();
        const idleMs = options.idleMs;
        if (idleMs !== undefined) stopIdle = after(idleMs, () => { stalled.abort(new RunModelStalled(idleMs)); });
      };
      try {
        watch();
        const open = await unlessAborted(options.open(runMessages(run, steps, verbs), verbs, signal, run), signal);
        const calls = new ToolCallAccumulator();
        let text = '';
        let spentUsd = 0;
        const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
        const events = open.events[Symbol.asyncIterator]();
        for (;;) {
          watch();
          const next = await unlessAborted(events.next(), signal);
          if (next.done === true) break;
          const event = next.value;
          if (event.type === 'delta') text += event.text;
          else if (event.type === 'tool-call') calls.push(event.piece);
          else if (event.type === 'usage') {
            spentUsd += options.costOf(open.model, event.usage);
            usage.promptTokens += event.usage.promptTokens;
            usage.completionTokens += event.usage.completionTokens;
          }
        }
        const toolCalls = calls.calls().map((call) => ({ id: call.id, verb: verbNameOf(call.name), input: argumentsOf(call.arguments) }));
        return { model: open.model, text: text.trim(), toolCalls, spentUsd, usage, ...(open.provider === undefined ? {} : { provider: open.provider.name }) };
      } finally {
        stopIdle();
      }
    },
  };
}

/** The arguments as the model wrote them, parsed; what does not parse goes to the executor as it is, to be refused there. */
function argumentsOf(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
