/**
 * WebRTC's AEC3 (@ennuicastr/webrtcaec3.js, BSD-3-Clause, WebRTC's own licence; its glue 0BSD),
 * made ready synchronously: a level meter would build its canceller in the worklet's constructor,
 * and an AudioWorkletGlobalScope has no fetch, no atob and no way to wait for a promise before the
 * first render quantum.
 *
 * The package's one script carries its WebAssembly inline, as a base64 data URI it assigns to the
 * global `WebRtcAec3Wasm` when it runs (aec3Global.ts declares it first); the module is compiled
 * and instantiated here from those bytes with `new WebAssembly.Module` and `new WebAssembly.Instance`
 * through Emscripten's `instantiateWasm` hook, so the factory has set up `AEC3` by the time it
 * returns. The same runs in Node, for the tests and the benches.
 */
import './aec3Global';
import WebRtcAec3 from '@ennuicastr/webrtcaec3.js';
import type { Aec3Engine } from './aec3Canceller';

/** An AEC3 instance as the package makes it: the engine, and the memory it holds until freed. */
interface Aec3Instance extends Aec3Engine {
  free(): void;
}

/**
 * Makes an AEC3 instance, one render and one capture channel, for blocks at `inputRateHz`: at that
 * rate where AEC3 runs at it (16, 32 or 48 kHz), at 48 kHz otherwise, resampling to it and back.
 */
export type Aec3Maker = (inputRateHz: number) => Aec3Engine & { free(): void };

const AEC3_RATES_HZ: readonly number[] = [16_000, 32_000, 48_000];

/** Emscripten's module settings, of which the package's types declare none. */
interface ModuleConfig {
  instantiateWasm: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => void) => WebAssembly.Exports;
  AEC3?: new (rateHz: number, renderChannels: number, captureChannels: number) => Aec3Instance;
}

const DATA_URI = 'data:application/wasm;base64,';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes base64 with no `atob` (a worklet has none). */
function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const lookup = new Uint8Array(128);
  for (let i = 0; i < BASE64.length; i++) lookup[BASE64.charCodeAt(i)] = i;
  const length = text.replace(/=+$/, '').length;
  const bytes = new Uint8Array(Math.floor((length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (let i = 0; i < length; i++) {
    value = ((value << 6) | (lookup[text.charCodeAt(i)] ?? 0)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  return bytes;
}

let maker: Aec3Maker | undefined;

/**
 * The AEC3 maker, compiled on first call (some tens of ms) and kept for the scope's life. Throws a
 * plain `Error`, keeping its cause, if the package's WebAssembly cannot be made ready: only the
 * worklet's console would read it, and the level meter cannot run without it.
 */
export function aec3Maker(): Aec3Maker {
  if (maker !== undefined) return maker;
  const inline = (globalThis as { WebRtcAec3Wasm?: string }).WebRtcAec3Wasm ?? '';
  if (!inline.startsWith(DATA_URI)) throw new Error('The AEC3 package did not carry its WebAssembly inline.');
  const bytes = fromBase64(inline.slice(DATA_URI.length));
  let failed: unknown = null;
  const config: ModuleConfig = {
    instantiateWasm(imports, receive) {
      try {
        const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), imports);
        receive(instance);
        return instance.exports;
      } catch (cause) {
        failed = cause;
        throw cause;
      }
    },
  };
  // The factory's promise settles after the setup it has already done here; a failure is thrown
  // below, from `failed`, so its rejection carries nothing more.
  (WebRtcAec3 as unknown as (config: ModuleConfig) => Promise<unknown>)(config).catch(() => undefined);
  const Aec3 = config.AEC3;
  if (failed !== null || Aec3 === undefined) throw new Error('The AEC3 WebAssembly would not start.', { cause: failed });
  maker = (inputRateHz) => new Aec3(AEC3_RATES_HZ.includes(inputRateHz) ? inputRateHz : 48_000, 1, 1);
  return maker;
}
