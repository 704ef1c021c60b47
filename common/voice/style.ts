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

export const STYLE_TTL_DIMS = [1, 50, 256] as const;
export const STYLE_DP_DIMS = [1, 8, 16] as const;

/** The preset voices every version ships: five female, five male. */
export const VOICES = ['F1', 'F2', 'F3', 'F4', 'F5', 'M1', 'M2', 'M3', 'M4', 'M5'] as const;

/** A voice file the engine cannot use; names the voice and the field. */
export class VoiceStyleError extends Error {
  override readonly name = 'VoiceStyleError';
}

function tensor(json: unknown, key: string, dims: readonly number[], voice: string): Float32Array {
  const entry = typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[key] : undefined;
  const body = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
  const given = body.dims;
  if (!Array.isArray(given) || given.length !== dims.length || given.some((d, i) => d !== dims[i])) {
    throw new VoiceStyleError(`Voice ${voice}: ${key}.dims must be [${dims.join(', ')}]; it is ${given === undefined ? 'missing' : JSON.stringify(given)}.`);
  }
  const flat = Array.isArray(body.data) ? (body.data as unknown[]).flat(dims.length) : [];
  const size = dims.reduce((a, b) => a * b, 1);
  if (flat.length !== size || flat.some((v) => typeof v !== 'number' || !Number.isFinite(v))) {
    throw new VoiceStyleError(`Voice ${voice}: ${key}.data must hold ${size} finite numbers shaped [${dims.join(', ')}].`);
  }
  return Float32Array.from(flat as number[]);
}

export function readVoiceStyle(json: unknown, voice: string): VoiceStyle {
  return { ttl: tensor(json, 'style_ttl', STYLE_TTL_DIMS, voice), dp: tensor(json, 'style_dp', STYLE_DP_DIMS, voice) };
}
