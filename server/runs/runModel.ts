/**
 * One model call of a run: the reply to the conversation its steps make. Two sources: a run that
 * carries a script (no model is bought — no key, or `AGENTS_LIVE` unset) is answered from it, one
 * verb call per model step and then the verbs' own stand-in sentences; any other run is answered
 * by the same `OpenModel` stream the door reads (a provider, with fall-over, or the stand-in).
 */
import { ToolCallAccumulator } from '../chat/toolCalls';
import type { OpenModel } from '../chat/acting';
import type { TokenUsage } from '../chat/prices';
import { recognise } from '../chat/standInModel';
import { STAND_IN_MODEL, standInAnswer } from '../chat/standIn';
import type { PromptMessage } from '../chat/upstream';
import { toolNameOf, verbNameOf } from '../verbs/project';
import type { Verb } from '../verbs/verb';
import type { AskedCall, Run, RunStep, ScriptedCall } from './types';

export interface ModelReply {
  /** The model that answered, as it named itself. */
  model: string;
  /** Its words ('' when it only asked for tools). */
  text: string;
  toolCalls: AskedCall[];
  /** What the call cost, USD. */
  spentUsd: number;
}

export interface RunModel {
  reply(run: Run, steps: readonly RunStep[], verbs: readonly Verb[], signal: AbortSignal): Promise<ModelReply>;
}

/** The run as a conversation with the model: what was asked, then each model call and each tool's answer. */
export function runMessages(run: Pick<Run, 'asked'>, steps: readonly RunStep[]): PromptMessage[] {
  const messages: PromptMessage[] = [{ role: 'user', content: run.asked }];
  for (const { body } of steps) {
    if (body.kind === 'model' && body.toolCalls.length > 0) {
      messages.push({
        role: 'assistant',
        content: body.text === '' ? null : body.text,
        tool_calls: body.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: toolNameOf(call.verb), arguments: JSON.stringify(call.input ?? {}) } })),
      });
    } else if (body.kind === 'tool') {
      messages.push({ role: 'tool', tool_call_id: body.callId, content: JSON.stringify(body.outcome) });
    }
  }
  return messages;
}

/**
 * The script the stand-in carries for `asked`: each clause ("…, then …", "… and then …", a new
 * sentence) that a verb's phrasing recognises, in order. Clauses it does not recognise are left out;
 * an empty script answers with the stand-in's own sentence.
 */
export function scriptFor(asked: string, verbs: readonly Verb[]): ScriptedCall[] {
  const clauses = asked.split(/(?:[.;!?]\s+|,?\s+and then\s+|,\s*then\s+|\s+then\s+)/i).filter((clause) => clause.trim() !== '');
  return clauses.flatMap((clause) => {
    const found = recognise(clause, verbs);
    return found === undefined ? [] : [{ verb: found.verb.name, input: found.input }];
  });
}

/** Answers a run from its script: the next scripted call, or, once all have run, what they came to. */
export const scriptedModel: RunModel = {
  reply(run, steps, verbs) {
    const script = run.script ?? [];
    const asked = steps.filter((step) => step.body.kind === 'model' && step.body.toolCalls.length > 0).length;
    const call = script[asked];
    if (call !== undefined) return Promise.resolve({ model: STAND_IN_MODEL, text: '', toolCalls: [{ id: `call_script_${String(asked + 1)}`, ...call }], spentUsd: 0 });
    return Promise.resolve({ model: STAND_IN_MODEL, text: scriptedAnswer(run, steps, verbs), toolCalls: [], spentUsd: 0 });
  },
};

function scriptedAnswer(run: Pick<Run, 'asked'>, steps: readonly RunStep[], verbs: readonly Verb[]): string {
  const sentences = steps.flatMap(({ body }) => {
    if (body.kind !== 'tool') return [];
    if (!body.outcome.ok) return [body.outcome.message];
    const verb = verbs.find((v) => v.name === body.verb);
    if (verb?.standIn === undefined) return ['Done.'];
    const input = verb.input.safeParse(body.input);
    const output = verb.output.safeParse(body.outcome.output);
    return [input.success && output.success ? verb.standIn.say(output.data, input.data) : 'Done.'];
  });
  return sentences.length === 0 ? standInAnswer('no-provider', run.asked) : sentences.join(' ');
}

export interface StreamedModelOptions {
  /** The model's answer to `messages` with `verbs` as its tools: a provider's stream, or the stand-in's. */
  open: (messages: readonly PromptMessage[], verbs: readonly Verb[], signal: AbortSignal) => Promise<OpenModel>;
  /** USD a call's usage cost. */
  costOf: (model: string, usage: TokenUsage) => number;
}

/** A run's model calls through an `OpenModel` stream, read to its end. */
export function streamedModel(options: StreamedModelOptions): RunModel {
  return {
    async reply(run, steps, verbs, signal) {
      const open = await options.open(runMessages(run, steps), verbs, signal);
      const calls = new ToolCallAccumulator();
      let text = '';
      let spentUsd = 0;
      for await (const event of open.events) {
        if (event.type === 'delta') text += event.text;
        else if (event.type === 'tool-call') calls.push(event.piece);
        else if (event.type === 'usage') spentUsd += options.costOf(open.model, event.usage);
      }
      const toolCalls = calls.calls().map((call) => ({ id: call.id, verb: verbNameOf(call.name), input: argumentsOf(call.arguments) }));
      return { model: open.model, text: text.trim(), toolCalls, spentUsd };
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
