/**
 * What the voice does once the echo gate has heard the person over it: it ducks at once, as a
 * person falls quiet when someone starts to speak, and then decides, within a second or so, whether
 * it really was their turn:
 *
 * - **take the turn** — words that are not only a backchannel ("wait, stop", "actually…"), or a
 *   sound that goes on longer than a backchannel does: the answer stops, as barge-in always did;
 * - **carry on** — a backchannel ("mm-hmm", "yeah", `shortTurns.ts`) once it has ended; a noise (a
 *   cough, a knock, a click) that ended with no words by the time words would have come; or a
 *   sound with no words within `wordsWithinMs`: the voice comes back to full level, nothing lost.
 *
 * Two things tell how long the person's sound goes on, and whether it has ended:
 *
 * - a **voice activity model** (Silero), when it is informative: when its frames come in and it
 *   heard no speech just before the duck. It then also tells a noise at once (no speech within
 *   `noSpeechMs`). Over a speaker, it hears the voice's own leak as speech, before and after the
 *   person alike, and says nothing about them;
 * - the **level** of the microphone against the bar the person cleared when the gate heard them
 *   (`sound` frames), which a leak stays under: how long the sound the gate heard lasts, not
 *   whether it is speech.
 *
 * Words still decide after carrying on past a sound with no words in it, for as long as they would
 * have had to come (`wordsWithinMs` from the duck): a short "Stop." heard late is still a turn. An
 * interim that could still become a backchannel ("I" of "I see") decides nothing yet. A hold of the
 * talk control always takes the turn, at once.
 *
 * Pure: the state is plain data, and every input carries its own time.
 */
import { beginsBackchannel, isBackchannel } from '../conversation/shortTurns';

/** What the decision is timed by; the page's figures are `HEARING.yielding` (`tuning.ts`). */
export interface YieldingOptions {
  /** Speech longer than this, in ms, unbroken, is more than a backchannel: it takes the turn. */
  backchannelMaxMs: number;
  /** With a voice activity model: no speech heard this long after the duck is a noise, in ms. */
  noSpeechMs: number;
  /** Speech with no recognised words this long after the duck is not a turn, in ms. */
  wordsWithinMs: number;
  /** How long speech must have stopped, in ms, before a backchannel is taken as ended. */
  endedMs: number;
  /**
   * How long after the duck a recogniser's first words come, in ms, when there are any (Chrome's:
   * ~400 ms after speech begins): a sound that has ended with none by then was not words.
   */
  wordsExpectedMs: number;
}

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
      /** Whether the voice activity model is heard in this decision: its frames come, and it heard no speech before the duck. */
      model: boolean;
      /** When the current run of speech began (voice activity), or null while there is none. */
      speechFromMs: number | null;
      /** When speech was last heard, or null when none has been since the duck. */
      lastSpeechMs: number | null;
      /** How far the model has heard: its latest frame since the duck, or null before one. */
      voiceToMs: number | null;
      /** The level the person cleared when the gate heard them, or null when it was not given. */
      bar: number | null;
      /** When the current run of sound over `bar` began (gaps shorter than `endedMs` bridged), or null while there is none. */
      soundFromMs: number | null;
      /** When the microphone was last over `bar`, or null when it has not been since the duck. */
      lastSoundMs: number | null;
      /** How far the level has been heard: its latest frame since the duck, or null before one. */
      soundToMs: number | null;
      /** The words recognised since the duck, the latest interim or final. */
      words: string;
      /** Whether `words` are a final: an interim may still grow into a backchannel. */
      final: boolean;
    };

export const SPEAKING: YieldingState = Object.freeze({ kind: 'speaking' });

/** What one input changed: the state after it, and the ruling, when there is a new one. */
export interface Step {
  state: YieldingState;
  ruling: Ruling | null;
}

export type YieldingInput =
  /**
   * The echo gate heard the person over the voice, clearing `bar`; `speechBefore`: whether the
   * voice activity model was hearing speech just before (the voice's own leak, over speakers).
   */
  | { kind: 'heard'; atMs: number; bar?: number; speechBefore?: boolean }
  /** One frame of the voice activity model: whether it heard speech. */
  | { kind: 'voice'; atMs: number; speech: boolean }
  /** One frame of the microphone's level. */
  | { kind: 'sound'; atMs: number; level: number }
  /** Words from the recogniser, interim or final, since the duck. */
  | { kind: 'words'; atMs: number; text: string; final?: boolean }
  /** Time passing, with nothing heard. */
  | { kind: 'tick'; atMs: number }
  /** The talk control held down: always the person's turn. */
  | { kind: 'held'; atMs: number };

export interface YieldingContext {
  options: YieldingOptions;
  /** The person's language (BCP 47), as a backchannel is heard. */
  language: string;
  /** Whether a voice activity model's frames come in now. */
  voiceActivity: boolean;
}

/** The next step of the decision for `input`. */
export function yieldTo(state: YieldingState, input: YieldingInput, context: YieldingContext): Step {
  if (input.kind === 'held') return { state: SPEAKING, ruling: 'take' };
  if (state.kind === 'speaking') {
    if (input.kind === 'heard') {
      const model = context.voiceActivity && input.speechBefore !== true;
      return {
        state: {
          kind: 'deciding',
          sinceMs: input.atMs,
          model,
          speechFromMs: null,
          lastSpeechMs: null,
          voiceToMs: null,
          bar: input.bar ?? null,
          soundFromMs: null,
          lastSoundMs: null,
          soundToMs: null,
          words: '',
          final: false,
        },
        ruling: 'duck',
      };
    }
    return { state, ruling: input.kind === 'words' && lateWordsTake(state, input, context) ? 'take' : null };
  }
  let next = state;
  if (input.kind === 'voice' && state.model) {
    const voiceToMs = Math.max(state.voiceToMs ?? input.atMs, input.atMs);
    next = input.speech
      ? { ...state, speechFromMs: state.speechFromMs ?? input.atMs, lastSpeechMs: input.atMs, voiceToMs }
      : { ...state, speechFromMs: null, voiceToMs };
  } else if (input.kind === 'sound' && state.bar !== null) {
    const soundToMs = Math.max(state.soundToMs ?? input.atMs, input.atMs);
    if (input.level > state.bar) next = { ...state, soundFromMs: state.soundFromMs ?? input.atMs, lastSoundMs: input.atMs, soundToMs };
    else if (state.lastSoundMs !== null && input.atMs - state.lastSoundMs >= context.options.endedMs) next = { ...state, soundFromMs: null, soundToMs };
    else next = { ...state, soundToMs };
  } else if (input.kind === 'words') {
    next = { ...state, words: input.text, final: input.final === true };
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
function rulingOf(state: Extract<YieldingState, { kind: 'deciding' }>, nowMs: number, { options, language }: YieldingContext): Ruling | null {
  const words = state.words.trim();
  const backchannel = words !== '' && isBackchannel(words, language);
  // Words that are more than a backchannel are the person's turn, whatever else is heard; an
  // interim that may still grow into one ("I" of "I see") waits for the next.
  if (words !== '' && !backchannel && (state.final || !beginsBackchannel(words, language))) return 'take';
  const undecided = words !== '' && !backchannel;
  const sinceMs = nowMs - state.sinceMs;
  // How long a sound goes on, and whether it has ended, is read only as far as the frames have
  // come: a model or an audio thread that has fallen behind has said neither "still speech" nor "none".
  if (state.model) {
    const heardToMs = state.voiceToMs ?? state.sinceMs;
    // Speech going on longer than a backchannel does is a turn, words or none yet.
    if (state.speechFromMs !== null && heardToMs - state.speechFromMs > options.backchannelMaxMs) return 'take';
    // Nothing the model took for speech: a cough, a knock, a click.
    if (state.lastSpeechMs === null) {
      if (heardToMs - state.sinceMs >= options.noSpeechMs) return undecided ? null : 'carryOn';
    } else if (backchannel && state.speechFromMs === null && heardToMs - state.lastSpeechMs >= options.endedMs) {
      return 'carryOn';
    }
  } else if (state.bar !== null) {
    const heardToMs = state.soundToMs ?? state.sinceMs;
    // A sound over the bar going on longer than a backchannel does is a turn.
    if (state.soundFromMs !== null && heardToMs - state.soundFromMs > options.backchannelMaxMs) return 'take';
    const ended = state.soundFromMs === null && heardToMs - (state.lastSoundMs ?? state.sinceMs) >= options.endedMs;
    // A final comes once the recogniser has heard the words end.
    if (backchannel && (ended || state.final)) return 'carryOn';
    // Over, and no words by the time they would have come: a noise.
    if (ended && words === '' && heardToMs - state.sinceMs >= options.wordsExpectedMs) return 'carryOn';
  } else if (backchannel) {
    return 'carryOn';
  }
  return sinceMs >= options.wordsWithinMs ? 'carryOn' : null;
}
