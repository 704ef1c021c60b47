/**
 * What the voice does once the echo gate has heard the person over it: it ducks at once, as a
 * person falls quiet when someone starts to speak, and then decides, within a second or so, whether
 * it really was their turn:
 *
 * - **take the turn** — words that are not only a backchannel ("wait, stop", "actually…"), or speech
 *   that goes on longer than a backchannel does: the answer stops, as barge-in always did;
 * - **carry on** — a backchannel ("mm-hmm", "yeah", `shortTurns.ts`) once it has ended; no speech at
 *   all (a cough, a knock, a click: the voice activity model heard none); or speech with no words
 *   within `wordsWithinMs`: the voice comes back to full level and nothing is lost.
 *
 * Words still decide after carrying on past a sound with no words in it, for as long as they would
 * have had to come (`wordsWithinMs` from the duck): when the model took a short word ("Stop.") for
 * no speech and the recogniser then hears it, the turn is the person's after all. After a
 * backchannel, the words came and were judged: what the recogniser hears next needs the gate again.
 *
 * Without a voice activity model (`voiceActivity: false`) only words and time decide: words that are
 * not a backchannel take the turn; a backchannel, or no words within `wordsWithinMs`, carries on. A
 * hold of the talk control always takes the turn, at once.
 *
 * Pure: the state is plain data, and every input carries its own time.
 */
import { isBackchannel } from '../conversation/shortTurns';

export interface YieldingOptions {
  /** Speech longer than this, in ms, unbroken, is more than a backchannel: it takes the turn. */
  backchannelMaxMs: number;
  /** With a voice activity model: no speech heard this long after the duck is a noise, in ms. */
  noSpeechMs: number;
  /** Speech with no recognised words this long after the duck is not a turn, in ms. */
  wordsWithinMs: number;
  /** How long speech must have stopped, in ms, before a backchannel is taken as ended. */
  endedMs: number;
}

export const YIELDING: Readonly<YieldingOptions> = Object.freeze({ backchannelMaxMs: 700, noSpeechMs: 350, wordsWithinMs: 1500, endedMs: 250 });

/** What the voice is to do: duck (at once), take the turn (stop), or carry on at full level. */
export type Ruling = 'duck' | 'take' | 'carryOn';

export type YieldingState =
  | {
      kind: 'speaking';
      /** When the gate last heard the person, if the voice carried on past a sound with no words: they may still come. */
      carriedOnFromMs?: number;
    }
  | {
      kind: 'deciding';
      /** When the gate heard the person, ms. */
      sinceMs: number;
      /** When the current run of speech began (voice activity), or null while there is none. */
      speechFromMs: number | null;
      /** When speech was last heard, or null when none has been since the duck. */
      lastSpeechMs: number | null;
      /** The words recognised since the duck, the latest interim or final. */
      words: string;
    };

export const SPEAKING: YieldingState = Object.freeze({ kind: 'speaking' });

/** What one input changed: the state after it, and the ruling, when there is a new one. */
export interface Step {
  state: YieldingState;
  ruling: Ruling | null;
}

export type YieldingInput =
  /** The echo gate heard the person over the voice. */
  | { kind: 'heard'; atMs: number }
  /** One frame of the voice activity model: whether it heard speech. */
  | { kind: 'voice'; atMs: number; speech: boolean }
  /** Words from the recogniser, interim or final, since the duck. */
  | { kind: 'words'; atMs: number; text: string }
  /** Time passing, with nothing heard. */
  | { kind: 'tick'; atMs: number }
  /** The talk control held down: always the person's turn. */
  | { kind: 'held'; atMs: number };

export interface YieldingContext {
  options: YieldingOptions;
  /** The person's language (BCP 47), as a backchannel is heard. */
  language: string;
  /** Whether a voice activity model's frames come in. */
  voiceActivity: boolean;
}

/** The next step of the decision for `input`. */
export function yieldTo(state: YieldingState, input: YieldingInput, context: YieldingContext): Step {
  if (input.kind === 'held') return { state: SPEAKING, ruling: 'take' };
  if (state.kind === 'speaking') {
    if (input.kind === 'heard') return { state: { kind: 'deciding', sinceMs: input.atMs, speechFromMs: null, lastSpeechMs: null, words: '' }, ruling: 'duck' };
    return { state, ruling: input.kind === 'words' && lateWordsTake(state, input, context) ? 'take' : null };
  }
  let next = state;
  if (input.kind === 'voice') {
    next = input.speech
      ? { ...state, speechFromMs: state.speechFromMs ?? input.atMs, lastSpeechMs: input.atMs }
      : { ...state, speechFromMs: null };
  } else if (input.kind === 'words') {
    next = { ...state, words: input.text };
  }
  const ruling = rulingOf(next, input.atMs, context);
  if (ruling === null) return { state: next, ruling: null };
  // Carried on past a sound with no words in it, its words may yet come; past a backchannel, they came.
  const wordsMayCome = ruling === 'carryOn' && next.words.trim() === '';
  return { state: wordsMayCome ? { kind: 'speaking', carriedOnFromMs: state.sinceMs } : SPEAKING, ruling };
}

/** Words that come after the voice carried on, while they still could have: more than a backchannel takes the turn. */
function lateWordsTake(state: Extract<YieldingState, { kind: 'speaking' }>, input: Extract<YieldingInput, { kind: 'words' }>, { options, language }: YieldingContext): boolean {
  if (state.carriedOnFromMs === undefined || input.atMs - state.carriedOnFromMs > options.wordsWithinMs) return false;
  const words = input.text.trim();
  return words !== '' && !isBackchannel(words, language);
}

/** Whether the person has taken the turn, the voice may carry on, or it is too soon to say. */
function rulingOf(state: Extract<YieldingState, { kind: 'deciding' }>, nowMs: number, { options, language, voiceActivity }: YieldingContext): Ruling | null {
  const words = state.words.trim();
  const backchannel = words !== '' && isBackchannel(words, language);
  // Words that are more than a backchannel are the person's turn, whatever else is heard.
  if (words !== '' && !backchannel) return 'take';
  const sinceMs = nowMs - state.sinceMs;
  if (voiceActivity) {
    // Speech going on longer than a backchannel does is a turn, words or none yet.
    if (state.speechFromMs !== null && nowMs - state.speechFromMs > options.backchannelMaxMs) return 'take';
    // Nothing the model took for speech: a cough, a knock, a click.
    if (state.lastSpeechMs === null) return sinceMs >= options.noSpeechMs ? 'carryOn' : null;
    const ended = state.speechFromMs === null && nowMs - state.lastSpeechMs >= options.endedMs;
    if (backchannel && ended) return 'carryOn';
  } else if (backchannel) {
    return 'carryOn';
  }
  return sinceMs >= options.wordsWithinMs ? 'carryOn' : null;
}
