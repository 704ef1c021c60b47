import { describe, expect, it } from 'vitest';
import { decodePcm16 } from '../../../src/platform/speakers/pcm16';
import { pcm16 } from './fakes';

/** Decodes `chunks` one after another, carrying the odd byte, as the endpoint speaker does. */
function decodeAll(chunks: readonly (readonly number[])[]): { samples: number[]; carry: number | undefined } {
  let carry: number | undefined;
  const samples: number[] = [];
  for (const chunk of chunks) {
    const decoded = decodePcm16(Uint8Array.from(chunk), carry);
    samples.push(...decoded.samples);
    carry = decoded.carry;
  }
  return { samples, carry };
}

describe('decodePcm16', () => {
  it('reads 16-bit little-endian samples as floats in [-1, 1)', () => {
    const { samples, carry } = decodePcm16(Uint8Array.from(pcm16(0, 16384, -16384, 32767, -32768, 1, -1)));
    expect([...samples]).toEqual([0, 0.5, -0.5, 32767 / 32768, -1, 1 / 32768, -1 / 32768]);
    expect(carry).toBeUndefined();
  });

  it('carries the odd byte of a split sample over to the next chunk', () => {
    const bytes = pcm16(1000, -2000, 3000);
    const first = decodePcm16(Uint8Array.from(bytes.slice(0, 3)));
    expect([...first.samples]).toEqual([1000 / 32768]);
    expect(first.carry).toBe(bytes[2]);
    const second = decodePcm16(Uint8Array.from(bytes.slice(3)), first.carry);
    expect([...second.samples]).toEqual([-2000 / 32768, 3000 / 32768]);
    expect(second.carry).toBeUndefined();
  });

  it('gives the same samples however the stream was split, down to one byte a chunk', () => {
    const values = [0, 1, -1, 255, 256, -256, 12345, -12345, 32767, -32768, 77];
    const bytes = pcm16(...values);
    const whole = values.map((value) => value / 32768);
    const splits = [[bytes], bytes.map((byte) => [byte]), [bytes.slice(0, 1), bytes.slice(1, 8), bytes.slice(8, 9), [], bytes.slice(9)]];
    for (const chunks of splits) {
      expect(decodeAll(chunks)).toEqual({ samples: whole, carry: undefined });
    }
  });

  it('keeps the carried byte through an empty chunk, and leaves a dangling byte as the carry', () => {
    const bytes = pcm16(-300);
    expect(decodeAll([bytes.slice(0, 1), [], bytes.slice(1)])).toEqual({ samples: [-300 / 32768], carry: undefined });
    expect(decodeAll([[...bytes, 9]])).toEqual({ samples: [-300 / 32768], carry: 9 });
  });
});
