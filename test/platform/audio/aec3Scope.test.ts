/**
 * AEC3's loader (aec3.ts) as Vite bundles it, run in a bare V8 context shaped like an
 * AudioWorkletGlobalScope (strict; no fetch, atob, TextDecoder, process or require): it compiles the
 * package's inline WebAssembly synchronously, so a level meter worklet could build AEC3 in its
 * processor's constructor, and the instance it makes takes a leak out of a microphone.
 */
import { createContext, runInContext } from 'node:vm';
import { build } from 'vite';
import { describe, expect, it } from 'vitest';
import { Aec3Canceller } from '../../helpers/aec3/aec3Canceller';
import type { Aec3Maker } from '../../helpers/aec3/aec3';
import { seededRandom } from '../../helpers/random';

const RATE = 48_000;
const QUANTUM = 128;
const FRAME = 480;

/** aec3.ts as one strict script that leaves its exports on the global `aec3`. */
async function bundledLoader(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: false, lib: { entry: 'test/helpers/aec3/aec3.ts', formats: ['iife'], name: 'aec3', fileName: 'aec3' } },
  });
  const output = Array.isArray(result) ? result[0] : result;
  const chunk = output !== undefined && 'output' in output ? output.output[0] : undefined;
  if (chunk?.type !== 'chunk') throw new Error('Vite built no chunk for the AEC3 loader.');
  return `"use strict";\n${chunk.code}`;
}

describe('AEC3 in an AudioWorkletGlobalScope', () => {
  it('is made ready synchronously from the package’s inline WebAssembly, and cancels a leak', async () => {
    const scope = createContext({ console });
    expect(runInContext('[typeof fetch, typeof atob, typeof TextDecoder, typeof process, typeof require].join()', scope)).toBe(
      'undefined,undefined,undefined,undefined,undefined',
    );
    runInContext(await bundledLoader(), scope);
    const maker = runInContext('aec3.aec3Maker()', scope) as Aec3Maker;
    const engine = maker(RATE);
    try {
      const canceller = new Aec3Canceller(engine, RATE, FRAME);
      const random = seededRandom(5);
      const output = new Float32Array(RATE * 3);
      let smooth = 0;
      for (let i = 0; i < output.length; i++) {
        smooth += 0.15 * (random() * 2 - 1 - smooth);
        output[i] = 0.5 * smooth * Math.abs(Math.sin((7 * i) / RATE));
      }
      const microphone = output.map((_, i) => 0.002 * (random() * 2 - 1) + 0.6 * (output[i - 700] ?? 0));
      for (let at = 0; at < output.length; at += QUANTUM) {
        canceller.push(microphone.subarray(at, at + QUANTUM), output.subarray(at, at + QUANTUM), QUANTUM, at, () => undefined);
      }
      expect(canceller.trusted).toBe(true);
      expect(canceller.enhancementDb).toBeGreaterThan(15);
    } finally {
      engine.free();
    }
  });
});
