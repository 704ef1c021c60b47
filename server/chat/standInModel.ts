/**
 * The stand-in as a model that can call verbs, so the demo acts with no key: it recognises the
 * plain phrasings each verb declares (`standIn.phrasings`), calls the verb through the same loop a
 * real model's calls go through, and words the results with the verb's own `standIn.say`. A line
 * with words a bot's skill hears in the person's language (`standIn.<lang>.hears` in its file)
 * opens that skill first, through `skills.open`, and is answered with the skill's own sentence in
 * that language. Anything it does not recognise gets the stand-in's usual answer, which says why it
 * is standing in.
 * It streams as a model does: tool calls in pieces, then text word by word.
 */
import { STAND_IN_MODEL, standInAnswer, wordByWord } from './standIn';
import type { Sleep, StandInReason } from './standIn';
import type { OpenModel } from './acting';
import type { PromptMessage, UpstreamEvent } from './upstream';
import { toolNameOf, verbNameOf } from '../verbs/project';
import { sentenceOf } from '../verbs/errors';
import type { VerbErrorCode } from '../verbs/errors';
import type { Verb } from '../verbs/verb';
import { say } from '../words/words';
import type { Words } from '../words/words';
import { BASE_LANGUAGE, shippedWords } from '../words/loadWords';
import { unfenced } from '../outside/fence';
import { listOffer, pickedList } from './standInChoices';
import { OPEN_SKILL, standInLines } from '../skills';
import type { Skill } from '../skills';

/** A bot's skill as the stand-in knows it: its name, and what opens it and is said once it has. */
export type StandInSkill = Pick<Skill, 'name' | 'standIn'>;

export interface StandInModelOptions {
  reason: StandInReason;
  /** The verbs in scope this turn; only these are ever called. */
  verbs: readonly Verb[];
  /** The bot's skills; default none. */
  skills?: readonly StandInSkill[];
  /** The turn's words, for all the stand-in says; default the shipped English. */
  words?: Words;
  /** The language `words` are in (the turn's), for the skills' lines and what `Intl` words; default `en`. */
  language?: string;
  wordMs: number;
  sleep: Sleep;
  signal: AbortSignal;
}

/** A line as the phrasings are written against: lower-case, plain apostrophes, no punctuation at either end ("¿…?"). */
export function plainLine(text: string): string {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim().replace(/^[¿¡]+/, '').replace(/[.!?]+$/, '').trim();
}

/** The stand-in's answer to `messages`, as a model's stream. */
export function standInModel(messages: readonly PromptMessage[], given: StandInModelOptions): OpenModel {
  const options = { ...given, words: given.words ?? shippedWords().wordsIn(BASE_LANGUAGE), language: given.language ?? BASE_LANGUAGE };
  return { model: STAND_IN_MODEL, events: events(messages, options) };
}

/** The options with the turn's words and language settled. */
type Settled = StandInModelOptions & Required<Pick<StandInModelOptions, 'words' | 'language'>>;

async function* events(messages: readonly PromptMessage[], options: Settled): AsyncGenerator<UpstreamEvent, void, undefined> {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    yield* words(resultsSentence(messages, options), options);
    return;
  }
  const question = messages.findLast((m) => m.role === 'user')?.content ?? '';
  const skill = heardSkill(question, options);
  // Where a choice fits, the stand-in offers one; the pick names what the question left open.
  const offer = skill === undefined ? listOffer(question, options.verbs, options.words) : undefined;
  if (offer !== undefined) {
    yield* words(offer, options);
    return;
  }
  const call = skill ?? pickedList(messages, options.verbs, options.words, options.language) ?? recognise(question, options.verbs);
  if (call === undefined) {
    yield* words(standInAnswer(options.reason, question, options.words), options);
    return;
  }
  // As a provider streams it: the id and name first, then the arguments in two pieces.
  const args = JSON.stringify(call.input);
  const cut = Math.floor(args.length / 2);
  const round = messages.filter((m) => m.role === 'assistant' && 'tool_calls' in m).length;
  yield { type: 'tool-call', piece: { index: 0, id: `call_standin_${String(round)}`, name: toolNameOf(call.verb.name), arguments: '' } };
  yield { type: 'tool-call', piece: { index: 0, arguments: args.slice(0, cut) } };
  yield { type: 'tool-call', piece: { index: 0, arguments: args.slice(cut) } };
  yield { type: 'finish', reason: 'tool_calls' };
}

async function* words(text: string, options: StandInModelOptions): AsyncGenerator<UpstreamEvent, void, undefined> {
  for await (const word of wordByWord(text, options.wordMs, options.sleep, options.signal)) yield { type: 'delta', text: word };
  if (!options.signal.aborted) yield { type: 'finish', reason: 'stop' };
}

/**
 * `skills.open` for the first of the bot's skills whose words in the person's language are in their
 * line, when it is in scope. Looked at before the verbs' phrasings: somebody in distress is heard
 * before a list is.
 */
function heardSkill(question: string, options: Settled): { verb: Verb; input: unknown } | undefined {
  const open = options.verbs.find((verb) => verb.name === OPEN_SKILL);
  if (open === undefined) return undefined;
  const line = wordsOf(question);
  const skill = options.skills?.find((one) => standInLines(one, options.language)?.hears.some((words) => line.includes(wordsOf(words))));
  return skill === undefined ? undefined : { verb: open, input: { name: skill.name } };
}

/** `text` as words between single spaces, lower-case, with a space at each end: whole words match whole words. */
function wordsOf(text: string): string {
  return ` ${plainLine(text).replace(/[^\p{L}\p{N}']+/gu, ' ').trim()} `;
}

/** The first verb in scope with a phrasing that matches the person's line, and its input. */
export function recognise(question: string, verbs: readonly Verb[]): { verb: Verb; input: unknown } | undefined {
  const line = plainLine(question);
  for (const verb of verbs) {
    for (const phrasing of verb.standIn?.phrasings ?? []) {
      phrasing.pattern.lastIndex = 0;
      const match = phrasing.pattern.exec(line);
      if (match !== null) return { verb, input: phrasing.input(match) };
    }
  }
  return undefined;
}

/** The results of the last calls, each said as its verb words it, or as its error's sentence. */
function resultsSentence(messages: readonly PromptMessage[], { verbs, words, language, skills }: Settled): string {
  const asked = messages.findLast((m) => m.role === 'assistant' && 'tool_calls' in m);
  const calls = asked !== undefined && 'tool_calls' in asked ? asked.tool_calls : [];
  const sentences = messages
    .filter((m): m is Extract<PromptMessage, { role: 'tool' }> => m.role === 'tool')
    .filter((m) => calls.some((c) => c.id === m.tool_call_id))
    .map((m) => {
      const call = calls.find((c) => c.id === m.tool_call_id);
      const verb = verbs.find((v) => v.name === verbNameOf(call?.function.name ?? ''));
      const answer = JSON.parse(unfenced(m.content)) as { ok: boolean; output?: unknown; error?: string; message?: string };
      if (!answer.ok || verb?.standIn === undefined) return answer.message ?? sentenceOf((answer.error ?? 'execution_failed') as VerbErrorCode, words);
      const input = verb.input.safeParse(JSON.parse(call?.function.arguments ?? '{}'));
      // A skill the stand-in opened by what it heard is answered with its own sentence.
      const opened = verb.name === OPEN_SKILL && input.success ? skills?.find((skill) => skill.name === (input.data as { name: string }).name) : undefined;
      const says = opened === undefined ? undefined : standInLines(opened, language)?.says;
      if (says !== undefined) return says;
      const output = verb.output.safeParse(answer.output);
      return input.success && output.success ? verb.standIn.say(output.data, input.data, words, language) : say(words, 'acting.done');
    });
  return sentences.join(' ');
}
