/**
 * A voice: the two style tensors of a preset voice file (`voice_styles/F1.json` …), flattened to
 * the `Float32Array`s the graphs take.
 */
export interface VoiceStyle {
    /** [1, 50, 256] */
    ttl: Float32Array;
    /** [1, 8, 16] */
    dp: Float32Array;
}
export declare const STYLE_TTL_DIMS: readonly [1, 50, 256];
export declare const STYLE_DP_DIMS: readonly [1, 8, 16];
/** The preset voices every version ships: five female, five male. */
export declare const VOICES: readonly ["F1", "F2", "F3", "F4", "F5", "M1", "M2", "M3", "M4", "M5"];
export type VoiceName = (typeof VOICES)[number];
/** A voice file the engine cannot use; names the voice and the field. */
export declare class VoiceStyleError extends Error {
    readonly name = "VoiceStyleError";
}
export declare function readVoiceStyle(json: unknown, voice: string): VoiceStyle;
