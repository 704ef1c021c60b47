/**
 * Mono 16-bit PCM WAV in and out, for the test speech: enough to read what espeak-ng and sox write
 * and to write the fake microphone files Chromium plays (`--use-file-for-fake-audio-capture`).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Mono samples in [-1, 1] at `rateHz`. */
export interface Pcm {
  samples: Float32Array;
  rateHz: number;
}

/** A file this reader cannot use; says which and why. */
class WavError extends Error {
  override readonly name = 'WavError';
}

function chunkAt(bytes: Buffer, id: string): { at: number; size: number } {
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32LE(at + 4);
    if (bytes.toString('ascii', at, at + 4) === id) return { at: at + 8, size };
    at += 8 + size + (size % 2);
  }
  throw new WavError(`no "${id}" chunk`);
}

/** Reads a RIFF/WAVE file of 16-bit PCM; takes the first channel of a multichannel one. */
export function readWav(path: string): Pcm {
  const bytes = readFileSync(path);
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavError(`${path} is not a WAV file; write it with sox or espeak-ng -w.`);
  }
  const fmt = chunkAt(bytes, 'fmt ');
  const format = bytes.readUInt16LE(fmt.at);
  const channels = bytes.readUInt16LE(fmt.at + 2);
  const rateHz = bytes.readUInt32LE(fmt.at + 4);
  const bits = bytes.readUInt16LE(fmt.at + 14);
  // 0xfffe is WAVE_FORMAT_EXTENSIBLE, which sox writes for the same PCM.
  if ((format !== 1 && format !== 0xfffe) || bits !== 16) {
    throw new WavError(`${path} is format ${format} at ${bits} bits; convert it to 16-bit PCM with sox -b 16.`);
  }
  const data = chunkAt(bytes, 'data');
  const frames = Math.floor(Math.min(data.size, bytes.length - data.at) / (2 * channels));
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) samples[i] = bytes.readInt16LE(data.at + i * 2 * channels) / 32768;
  return { samples, rateHz };
}

/** Writes mono 16-bit PCM, clipping at full scale as a capture would. */
export function writeWav(path: string, pcm: Pcm): void {
  const { samples, rateHz } = pcm;
  const bytes = Buffer.alloc(44 + samples.length * 2);
  bytes.write('RIFF', 0, 'ascii');
  bytes.writeUInt32LE(36 + samples.length * 2, 4);
  bytes.write('WAVE', 8, 'ascii');
  bytes.write('fmt ', 12, 'ascii');
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20);
  bytes.writeUInt16LE(1, 22);
  bytes.writeUInt32LE(rateHz, 24);
  bytes.writeUInt32LE(rateHz * 2, 28);
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write('data', 36, 'ascii');
  bytes.writeUInt32LE(samples.length * 2, 40);
  for (let i = 0; i < samples.length; i++) {
    const clipped = Math.max(-1, Math.min(1, samples[i] ?? 0));
    bytes.writeInt16LE(Math.round(clipped * 32767), 44 + i * 2);
  }
  writeFileSync(path, bytes);
}
