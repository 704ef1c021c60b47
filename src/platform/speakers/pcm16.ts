/**
 * Raw PCM as OpenAI's speech endpoint sends it for `response_format: pcm` — 24 kHz, 16-bit signed
 * little-endian, mono — turned into the float samples the player takes. A stream's chunks split
 * wherever the network split them, including between the two bytes of one sample, so the odd byte
 * is carried over to the next chunk rather than read as half a sample.
 */

/** The sample rate of `response_format: pcm`, in Hz. */
export const ENDPOINT_PCM_RATE_HZ = 24_000;

/** One chunk decoded, and the byte it could not use yet. */
export interface Pcm16Chunk {
  /** Mono samples in [-1, 1): each int16 divided by 32768. */
  samples: Float32Array;
  /** The low byte of a sample whose high byte is in the next chunk; undefined when none is pending. */
  carry: number | undefined;
}

/** An int16 given as its low and high bytes, as a float in [-1, 1). */
function sampleOf(low: number, high: number): number {
  const unsigned = low | (high << 8);
  return (unsigned >= 0x8000 ? unsigned - 0x10000 : unsigned) / 32768;
}

/**
 * Decodes `chunk`, prefixed by `carry` (the odd byte the previous chunk left). Pure: the same bytes
 * give the same samples however they were split.
 */
export function decodePcm16(chunk: Uint8Array, carry?: number): Pcm16Chunk {
  const bytes = chunk.length + (carry === undefined ? 0 : 1);
  const samples = new Float32Array(Math.floor(bytes / 2));
  let read = 0;
  let written = 0;
  if (carry !== undefined) {
    const high = chunk[0];
    if (high === undefined) return { samples, carry };
    samples[written++] = sampleOf(carry, high);
    read = 1;
  }
  for (; read + 1 < chunk.length; read += 2) {
    samples[written++] = sampleOf(chunk[read] ?? 0, chunk[read + 1] ?? 0);
  }
  return { samples, carry: read < chunk.length ? chunk[read] : undefined };
}
