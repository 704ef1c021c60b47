/**
 * The voice yielding to the person, wired: when the echo gate hears them over the voice, the voice
 * ducks and the recogniser listens, and the pure decision (`src/core/hearing/yielding.ts`) hears
 * their words (and time passing) until it rules: the turn is theirs — the conversation is told it
 * was talked over, and their words go on to it — or the voice carries on at full level and the
 * words, a backchannel or a noise's nothing, are let go.
 *
 * Where a voice activity model hears the microphone (`voice`), its frames go to the decision too:
 * a cough is let go within a few hundred ms, long speech takes the turn before its words come. The
 * model counts only while its frames keep coming; one that stops (not loaded yet, failed) leaves
 * words and time to decide. Every time here is the clock the frames carry (`nowMs`: the audio clock).
 *
 * Words that are the assistant's own, heard through the speakers while ducked, decide nothing.
 */
import { isSelfEcho } from '../core/hearing/selfEcho';
import { SPEAKING, YIELDING, yieldTo } from '../core/hearing/yielding';
import type { Ruling, YieldingInput, YieldingOptions, YieldingState } from '../core/hearing/yielding';

/** Words from the recogniser, as the conversation would be told them. */
export interface HeardWords {
  final: boolean;
  text: string;
}

export interface YielderPorts {
  /** The player's duck. */
  duck(ducked: boolean): void;
  /** The conversation told the person was heard over the voice: its recogniser runs until the turn ends. */
  heardOver(): void;
  /** Whether the bot's voice is sounding now. */
  sounding(): boolean;
  /** The conversation told the person talked over it: it stops the voice and the answer. */
  interrupt(): void;
  /** The voice carried on: the echo gate is to hear the next sound over it as it heard this one. */
  listenAgain(): void;
  /** Words held while it was decided, passed on once the turn is the person's. */
  forward(words: HeardWords): void;
  /** What the voice has said of this answer so far, and lately, as the machine's self-echo check has it (`remembered`). */
  spoken(): readonly string[];
  language(): string;
  /** The clock the gate's and the voice activity model's frames carry, in ms. */
  nowMs(): number;
  /** Calls `run` after `delayMs`; answers a way to cancel it. */
  after(delayMs: number, run: () => void): () => void;
}

export interface Yielder {
  /** The echo gate heard the person over the voice, in the frame that ended at `atMs` (default now), clearing `bar`. */
  heard(atMs?: number, bar?: number): void;
  /** One frame of the voice activity model: whether speech is going on. */
  voice(frame: { atMs: number; speech: boolean }): void;
  /** One frame of the microphone's level: how long the sound the gate heard goes on. */
  sound(frame: { atMs: number; level: number }): void;
  /** Words from the recogniser: true when they were taken here (a decision, or the voice sounding), false to pass them on. */
  words(words: HeardWords): boolean;
  /** The turn ended some other way (the voice played out, a hold, a stop): what was held goes on, the voice comes back. */
  release(): void;
  readonly deciding: boolean;
}

/** How often time is given to the decision while it is under way, in ms. */
const TICK_MS = 50;
/** The voice activity model counts while its last frame is this recent, in ms: a few of its 32 ms frames. */
const VOICE_FRESH_MS = 250;

export function createYielder(ports: YielderPorts, options: YieldingOptions = YIELDING): Yielder {
  let state: YieldingState = SPEAKING;
  let held: HeardWords[] = [];
  let cancelTick: (() => void) | null = null;
  let lastVoiceMs = Number.NEGATIVE_INFINITY;
  /** Whether the voice activity model's last frame heard speech. */
  let lastVoiceSpeech = false;

  const context = (atMs: number) => ({ options, language: ports.language(), voiceActivity: atMs - lastVoiceMs <= VOICE_FRESH_MS });

  function stopTicking(): void {
    cancelTick?.();
    cancelTick = null;
  }

  function tick(): void {
    cancelTick = ports.after(TICK_MS, () => {
      cancelTick = null;
      step({ kind: 'tick', atMs: ports.nowMs() });
      if (state.kind === 'deciding') tick();
    });
  }

  function step(input: YieldingInput): void {
    const next = yieldTo(state, input, context(input.atMs));
    state = next.state;
    if (next.ruling !== null) rule(next.ruling);
  }

  function rule(ruling: Ruling): void {
    if (ruling === 'duck') {
      ports.duck(true);
      ports.heardOver();
      tick();
      return;
    }
    stopTicking();
    const words = held;
    held = [];
    if (ruling === 'take') {
      // The conversation stops the voice (a stop ends the duck) and hears the words from here on.
      ports.interrupt();
      for (const heard of words) ports.forward(heard);
      return;
    }
    ports.duck(false);
    ports.listenAgain();
  }

  return {
    heard(atMs = ports.nowMs(), bar) {
      // Speech the model was hearing already is not the person's: over a speaker, it is the voice's own leak.
      step({ kind: 'heard', atMs, ...(bar === undefined ? {} : { bar }), speechBefore: lastVoiceSpeech && atMs - lastVoiceMs <= VOICE_FRESH_MS });
    },
    voice({ atMs, speech }) {
      lastVoiceMs = Math.max(lastVoiceMs, atMs);
      lastVoiceSpeech = speech;
      if (state.kind === 'deciding') step({ kind: 'voice', atMs, speech });
    },
    sound({ atMs, level }) {
      if (state.kind === 'deciding') step({ kind: 'sound', atMs, level });
    },
    words(words) {
      // Over the voice and outside a decision (or just after one the voice carried on past), the
      // recogniser (kept warm) hears the room, and maybe the voice itself: nothing it says is a
      // turn until the gate hears the person again.
      if (state.kind !== 'deciding' && state.carriedOnFromMs === undefined) return ports.sounding();
      // The assistant heard through the speakers is not the person.
      if (isSelfEcho(words.text, ports.spoken())) return true;
      held.push(words);
      step({ kind: 'words', atMs: ports.nowMs(), text: words.text, final: words.final });
      if (state.kind === 'deciding' || held.length === 0) return true;
      // Late words that did not take the turn (a backchannel, or too late) are let go.
      held = [];
      return ports.sounding();
    },
    release() {
      if (state.kind !== 'deciding') {
        state = SPEAKING;
        return;
      }
      state = SPEAKING;
      stopTicking();
      const words = held;
      held = [];
      ports.duck(false);
      for (const heard of words) ports.forward(heard);
    },
    get deciding() {
      return state.kind === 'deciding';
    },
  };
}
