/**
 * Keeping up: how fast this device makes speech, and what that allows, so an answer never falls
 * silent between its pieces.
 *
 * The on-device voice makes pieces one at a time while the ones before them play. A later piece
 * that is not ready when the audio before it (and the bot's gap) has played out leaves the person
 * in silence, and they take it that the bot has stopped. Three pure decisions keep that from
 * happening, each given the time rather than reading a clock:
 *
 * - `observeCost`: what each made piece teaches about this device. The page keeps the result per
 *   device, updates it after every piece, and starts from `SAFE_COST`.
 * - `budgetChars`: how long the next piece may be so that it is ready in time, from that cost and
 *   the audio still queued (`Pace`, from `paceOf` and `paceAfter`). A piece is cut to it only when
 *   the voice is ready for one (it has fewer than `PIECES_AHEAD` to make), so each is sized by the
 *   latest measurements, and pieces grow as the queue grows: the opening, then a clause or a
 *   sentence, then two, up to `Talk.pieceChars`. A slow device gets more, smaller pieces rather
 *   than silence.
 * - `stepsInTime`: how many solver steps a piece can have and still be ready in time, never fewer
 *   than the bot's floor. The engine asks once it knows the piece's length; the worker plans on the
 *   better informed of its own measurements and the page's (`fresherCost`), and never on a device
 *   quicker than the last piece it made (`slowerOf`).
 *
 * Times are milliseconds on one clock; costs are milliseconds of work per second of audio made,
 * because every graph but the two small ones runs once per latent frame.
 */
/** What making speech costs on this device: milliseconds of work per second of audio made. */
export interface VoiceCost {
    /** The duration predictor, the text encoder and the starting noise, per second of audio. */
    readonly prepareMsPerS: number;
    /** One solver step (one run of the vector estimator), per second of audio. */
    readonly stepMsPerS: number;
    /** The vocoder, per second of audio. */
    readonly vocodeMsPerS: number;
    /** Audio per character of text at speed 1, in ms; at speed `s` a character lasts this / `s`. */
    readonly audioMsPerChar: number;
    /** Pieces measured into it; 0 for the safe default. */
    readonly pieces: number;
    /** Where those pieces were made (`wasm`, `webgpu`); null for the safe default. */
    readonly provider: string | null;
}
/**
 * What a device is assumed to cost before it has made a piece: a real-time factor of 1 at 8 steps
 * (a second of audio in a second), slower than any device the voice is usable on, so the first
 * answer on a new device is cut small rather than late. Speech at 70 ms a character is about 14
 * characters a second, English at the model's own pace.
 */
export declare const SAFE_COST: VoiceCost;
/**
 * Estimates are means and the machine is shared: a piece is planned as if it cost this much more
 * than its estimate, so an ordinary slow piece still lands in time.
 */
export declare const COST_HEADROOM = 1.2;
/**
 * Time between a piece being made and its first sample being scheduled: the worker hands it to the
 * page and the page to the player. Subtracted from every deadline.
 */
export declare const HANDOVER_MS = 30;
/**
 * Pieces the voice is given to make ahead: the one it is making and the next, so it never waits on
 * the page between pieces, while every piece after those is cut as late as that allows.
 */
export declare const PIECES_AHEAD = 2;
/** What one made piece cost, as the engine measured it. */
export interface PieceTiming {
    /** Characters of the piece's text. */
    chars: number;
    /** Audio made, in ms. */
    audioMs: number;
    /** The speaking rate it was made at (1.05 is the model's own pace). */
    speed: number;
    /** Solver steps it was made with. */
    steps: number;
    /** The duration predictor, text encoder and starting noise, in ms. */
    prepareMs: number;
    /** Every solver step together, in ms. */
    stepsMs: number;
    /** The vocoder and the trim, in ms. */
    vocodeMs: number;
    /** Where it was made (`wasm`, `webgpu`). */
    provider: string;
}
/**
 * The cost after one more piece: a running mean over the first pieces, then a moving one that takes
 * a slower piece more to heart than a quicker one. A piece made on another provider than the
 * pieces before it (WebGPU failed over to WASM) starts the measuring again from it; a piece with
 * no audio teaches nothing.
 */
export declare function observeCost(cost: VoiceCost, timing: PieceTiming): VoiceCost;
/**
 * The better informed of two costs: `mine`, folded from pieces just made, when it has measured at
 * least as many pieces as `given` or measured another provider than it (the engine moved), else
 * `given`. The worker takes the page's cost this way, since a piece asked ahead of time carries the
 * cost of before the pieces made since.
 */
export declare function fresherCost(given: VoiceCost, mine: VoiceCost | null): VoiceCost;
/**
 * Each rate the slower of the two: what a piece is planned on when being late is at stake and the
 * last piece made was slower than the estimate (the device may have just slowed down).
 */
export declare function slowerOf(a: VoiceCost, b: VoiceCost): VoiceCost;
/** The real-time factor a cost comes to at `steps`: ms of work per ms of audio. */
export declare function realTimeFactor(cost: VoiceCost, steps: number): number;
/** Estimated ms to make `audioMs` of speech at `steps`, the headroom not included. */
export declare function makeMs(cost: VoiceCost, audioMs: number, steps: number): number;
/** Estimated audio, in ms, of `chars` characters spoken at `speed`. */
export declare function audioMsOf(cost: VoiceCost, chars: number, speed: number): number;
/**
 * When a piece ready at `readyAtMs` will have played out, after audio that plays until `untilMs`:
 * the player starts it `gapMs` after the last sample before it, or as soon as it is ready if that
 * is later. `untilMs` 0 is nothing queued.
 */
export declare function playedUntil(untilMs: number, readyAtMs: number, audioMs: number, gapMs: number): number;
/** Where the on-device voice stands at `atMs`, as the page estimates it. */
export interface Pace {
    /** When these estimates were made, in ms. */
    readonly atMs: number;
    /** When the voice will have made every piece asked of it so far (at or before `atMs`: it is idle). */
    readonly busyUntilMs: number;
    /** When everything asked of it will have played out (at or before `atMs`: nothing is queued). */
    readonly playsUntilMs: number;
    /** Pieces asked of it and not yet made. */
    readonly making: number;
    /** The silence the player leaves between pieces, in ms: time a piece may still use. */
    readonly gapMs: number;
    /** The reader's speaking rate (1.05 is the model's own pace). */
    readonly speed: number;
    readonly cost: VoiceCost;
}
/** A piece asked of the voice and not yet handed to the player. */
export interface Making {
    /** Characters of its text. */
    readonly chars: number;
    /** Solver steps asked for. */
    readonly steps: number;
    /** When the voice began on it, for the one it is making now. */
    readonly sinceMs?: number;
    /** Made already, waiting for a piece before it: when it was ready and its audio, in ms. */
    readonly made?: {
        readonly atMs: number;
        readonly audioMs: number;
    };
}
/** What the page knows at `atMs`, from which `paceOf` estimates the rest. */
export interface VoiceQueue {
    readonly atMs: number;
    /** When the audio already handed to the player ends, in ms; 0 when none was. */
    readonly playsUntilMs: number;
    /** The pieces asked and not yet handed over, in the order they will play. */
    readonly making: readonly Making[];
    readonly gapMs: number;
    readonly speed: number;
    readonly cost: VoiceCost;
}
/** The pace of a queue: each piece still to make is made after the one before, at its estimated cost. */
export declare function paceOf(queue: VoiceQueue): Pace;
/**
 * The pace once one more piece of `chars` characters at `steps` is asked at `nowMs`: the voice makes
 * it after what it has (or from `sinceMs`, when it is already on it, but never before `nowMs`), and
 * it plays after what is queued.
 */
export declare function paceAfter(pace: Pace, chars: number, steps: number, nowMs: number, sinceMs?: number): Pace;
/**
 * The most characters the next piece may have, made at `steps`, and still be ready at `nowMs` by
 * the time everything before it has played out: 0 when nothing is queued (a piece now is late
 * whatever its size, and the shortest ends the silence soonest). The chunker never cuts a phrase
 * to meet it; a piece longer than its budget is the engine's to hurry (`stepsInTime`).
 */
export declare function budgetChars(pace: Pace, steps: number, nowMs: number): number;
/** What `stepsInTime` weighs, once the piece's length is known and its text encoded. */
export interface StepsQuestion {
    /** The steps asked for: the bot's `steps`. */
    wanted: number;
    /** The fewest it may be made with: the bot's `floor`. */
    floor: number;
    /** The piece's audio, in ms, as the duration predictor gave it. */
    audioMs: number;
    nowMs: number;
    /**
     * When its first sample must be scheduled for no silence beyond the gap, in ms (the end of the
     * audio before it plus the gap); null when nothing before it plays (the opening), when it is
     * never late.
     */
    readyByMs: number | null;
    cost: VoiceCost;
}
/**
 * The steps a piece is made with: as many as asked when it will be ready in time with them (or
 * nothing plays before it), else the most that still make it in time, else the floor — a piece
 * that sounds a little rougher rather than silence. Never more than `wanted`.
 */
export declare function stepsInTime(question: StepsQuestion): number;
/** A kept cost that is not one (written by another version, or damaged): the safe default instead. */
export declare function readVoiceCost(value: unknown): VoiceCost;
