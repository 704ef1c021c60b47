/**
 * Hearing a person over the assistant: the one place that joins the microphone's level frames,
 * whether the assistant is audible (from the player), and the echo gates.
 *
 * While the assistant is audible the recogniser is stopped (it opens a capture of its own that
 * echo cancellation does not touch), so barge-in is heard here, from the level of the page's own
 * echo-cancelled stream. Every frame goes to the gates with whether assistant audio was sounding:
 * one judges the level as it comes, the other the level with the assistant's output cancelled from
 * it by the level meter (while its canceller is trusted: gatePair.ts), which hears a soft start
 * sooner. A barge-in calls back, and the conversation ducks the voice and decides
 * (src/core/hearing/yieldingMachine.ts).
 *
 * One pair of gates lives as long as the hearing does, across answers and across the microphone
 * being muted and reopened: it has learned how loudly this room leaks, and the next answer should
 * start with that bar rather than a cold one.
 */
import type { ConversationEvent } from '../../common/conversation/events';
import { barsOf, hearPair, listenAgainPair, startGatePair } from '../core/hearing/gatePair';
import type { GatePairState } from '../core/hearing/gatePair';
import { HEARING } from '../core/hearing/tuning';
import type { HearingTuning } from '../core/hearing/tuning';
import { MicrophoneError, openMicrophoneLevel } from '../platform/audio/microphone';
import type { LevelFrame, LevelSource, MicrophoneLevel, MicrophoneOptions } from '../platform/audio/microphone';
import { sayWord } from '../platform/words';

/** Whether assistant audio is sounding now, and how loud it is going out; the player is one. */
export interface AssistantAudio {
  readonly audible: boolean;
  /**
   * While audible, when the sounding began, in ms on the frames' clock (the audio clock); null or
   * absent when unknown. A frame that ended before it is judged as heard with the voice silent.
   */
  readonly audibleFromMs?: number | null;
  /** The output's level now, 0..1: the gate judges the microphone against it. */
  level(): number;
}

/**
 * One microphone frame with the gates' verdict on it, as hearing hands it on. Not a `HeardFrame`
 * (`core/hearing/echoGateState.ts`), the frame a gate keeps: this one carries no duration.
 */
export interface JudgedFrame extends LevelFrame {
  /** Whether assistant audio was sounding when the frame was judged. */
  readonly assistantAudible: boolean;
  /** Whether this frame completed a barge-in. */
  readonly bargeIn: boolean;
  /** The level a person had to stay over as the frame came (the gate's bar from the leak it learned). */
  readonly bar: number;
  /** The bar the cancelled level had to stay over, while the echo canceller was trusted; null otherwise. */
  readonly cancelledBar: number | null;
}

/** Judges microphone frames against what the room leaks of the assistant's own voice. */
export class Hearing {
  #gates: GatePairState;
  readonly #assistant: AssistantAudio;
  readonly #onBargeIn: (frame: JudgedFrame) => void;
  readonly #heard = new Set<(frame: JudgedFrame) => void>();

  /** The gates' options this hearing runs: the page's are `HEARING`'s. */
  readonly tuning: Pick<HearingTuning, 'gate' | 'cancelledGate'>;

  /**
   * `onBargeIn` is called with the frame that completed a barge-in: a person held clearly over the
   * leak while the assistant was audible (or just after). Throws `OptionError` for a gate option a
   * person must fix.
   */
  constructor(assistant: AssistantAudio, onBargeIn: (frame: JudgedFrame) => void, tuning: Pick<HearingTuning, 'gate' | 'cancelledGate'> = HEARING) {
    this.tuning = tuning;
    this.#gates = startGatePair(tuning.gate, tuning.cancelledGate);
    this.#assistant = assistant;
    this.#onBargeIn = onBargeIn;
  }

  /**
   * Judges one frame, tells every `onHeard` listener, then calls back on a barge-in. Frames must
   * come in time order (one clock for every microphone this hearing listens to).
   */
  hear(frame: LevelFrame): JudgedFrame {
    // Frames are read after they were heard, later on a busy page: one from before the voice began,
    // read once it has, heard the room, and taken for the voice's leak it would teach the gate a
    // leak of nothing (a bar at its floor, cleared by the voice's own first syllables).
    const from = this.#assistant.audibleFromMs ?? null;
    const assistantAudible = this.#assistant.audible && (from === null || frame.atMs > from);
    // The output level metered with the frame, sample for sample, is the better reference; the
    // player's level read now is the fallback for a meter that has none.
    const assistantLevel = frame.assistantLevel ?? this.#assistant.level();
    const bars = barsOf(this.#gates);
    const judged = hearPair(this.#gates, { ...frame, assistantAudible, assistantLevel });
    this.#gates = judged.state;
    const { bargeIn } = judged;
    const heard: JudgedFrame = { ...frame, assistantAudible, assistantLevel, bargeIn, bar: bars.raw, cancelledBar: frame.cancelledLevel === undefined ? null : bars.cancelled };
    for (const listener of this.#heard) listener(heard);
    if (bargeIn) this.#onBargeIn(heard);
    return heard;
  }

  /** The voice carried on past what was heard: the next sound over it is heard as the first was. */
  listenAgain(): void {
    this.#gates = listenAgainPair(this.#gates);
  }

  /** Hears every frame of `source` from now on; the returned function stops that. */
  listenTo(source: LevelSource): () => void {
    return source.onFrame((frame) => this.hear(frame));
  }

  /** Calls `listener` with every frame as judged (for the orb and for tests); returns the unsubscribe. */
  onHeard(listener: (frame: JudgedFrame) => void): () => void {
    this.#heard.add(listener);
    return () => this.#heard.delete(listener);
  }

  /** The level a person must stay over right now, 0..1 (over 1 when nothing the microphone reads can clear it). */
  get bar(): number {
    return barsOf(this.#gates).raw;
  }
}

/** The machine's event for a microphone that cannot be used. */
export type MicRefused = Extract<ConversationEvent, { type: 'mic.refused' }>;

/**
 * The machine's `mic.refused` for a microphone that could not be opened: refused by the person or
 * the browser, or missing (no device, one that would not open, or a browser that cannot) — either
 * way the conversation goes on typed.
 */
export function micRefused(error: MicrophoneError): MicRefused {
  return { type: 'mic.refused', missing: error.problem !== 'refused', reason: error.message };
}

/** The reason given when the capture ends by itself after it was opened, in the person's language. */
export const microphoneLost = (): string => sayWord('page-hearing.mic-lost');

/** How `listenWithMicrophone` opens it; a test supplies its own. */
export type OpenMicrophone = (context: AudioContext, options: Partial<MicrophoneOptions>, reference?: AudioNode) => Promise<MicrophoneLevel>;

/**
 * Opens the page's microphone on `context` and lets `hearing` hear it. Resolves with the open
 * microphone (stop it to release the device), or with null after handing `onRefused` the machine's
 * event when it could not be opened; a capture that ends by itself later is handed over the same
 * way. Errors that are not the microphone's are thrown.
 */
export async function listenWithMicrophone(
  hearing: Hearing,
  context: AudioContext,
  onRefused: (event: MicRefused) => void,
  options: Partial<MicrophoneOptions> = {},
  open: OpenMicrophone = (opening, chosen, output) => openMicrophoneLevel(opening, chosen, undefined, output),
  /** The assistant's output (the player's `output`), metered in the same frames as the microphone. */
  reference?: AudioNode,
): Promise<MicrophoneLevel | null> {
  let microphone: MicrophoneLevel;
  try {
    microphone = await open(context, options, reference);
  } catch (error) {
    if (error instanceof MicrophoneError) {
      onRefused(micRefused(error));
      return null;
    }
    throw error;
  }
  hearing.listenTo(microphone);
  microphone.onEnded(() => {
    microphone.stop();
    onRefused({ type: 'mic.refused', missing: true, reason: microphoneLost() });
  });
  return microphone;
}
