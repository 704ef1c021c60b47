import * as Comlink from 'comlink';
import { MessageChannel } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { LoadProgress, LoadResult, SpeakRequest, SpokenPiece, TtsApi } from '../../common/voice/api';
import { TtsClient } from '../../src/platform/ttsClient';

/** A worker stand-in: the client talks to `api` over a real message channel, as it would to a worker. */
function fakeWorkers(api: TtsApi) {
  const started: { terminated: boolean }[] = [];
  const factory = () => {
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(api, nodeEndpoint(port2));
    const worker = Object.assign(nodeEndpoint(port1), {
      terminated: false,
      terminate() {
        worker.terminated = true;
        port1.close();
        port2.close();
      },
    });
    started.push(worker);
    return worker as unknown as Worker;
  };
  return { factory, started };
}

/** Node's MessagePort speaks `on('message')`; comlink wants `addEventListener` with `{ data }`. */
function nodeEndpoint(port: MessagePort): Comlink.Endpoint {
  const listeners = new Map<EventListenerOrEventListenerObject, (data: unknown) => void>();
  return {
    postMessage: (message: unknown, transfer?: Transferable[]) => {
      port.postMessage(message, (transfer ?? []) as never);
    },
    addEventListener: (_type: string, listener: EventListenerOrEventListenerObject) => {
      const wrapped = (data: unknown) => {
        const event = { data } as MessageEvent;
        if (typeof listener === 'function') listener(event);
        else listener.handleEvent(event);
      };
      listeners.set(listener, wrapped);
      port.on('message', wrapped);
    },
    removeEventListener: (_type: string, listener: EventListenerOrEventListenerObject) => {
      const wrapped = listeners.get(listener);
      if (wrapped) port.off('message', wrapped);
    },
  };
}

const result: LoadResult = { version: 'supertonic-3', executionProvider: 'wasm', sampleRateHz: 44_100, unverified: [] };

function service(calls: string[]): TtsApi {
  return {
    load: async (_request, onProgress: (p: LoadProgress) => void) => {
      calls.push('load');
      // Across the worker boundary the callback is a proxy whose call answers with a promise.
      await (onProgress as unknown as (p: LoadProgress) => Promise<void>)({ bytesDone: 5, bytesTotal: 10, file: 'onnx/tts.json' });
      return result;
    },
    voices: () => Promise.resolve(['F1']),
    languages: () => Promise.resolve(['en']),
    speak: (request: SpeakRequest): Promise<SpokenPiece | null> => {
      calls.push(`speak ${request.piece}`);
      const samples = new Float32Array(4).fill(0.5);
      const timing = { chars: request.text.length, audioMs: 0.09, speed: request.speed, steps: request.steps, prepareMs: 0, stepsMs: 0, vocodeMs: 0, provider: 'wasm' };
      return Promise.resolve(Comlink.transfer({ utteranceId: request.utteranceId, piece: request.piece, samples, sampleRateHz: 44_100, unknown: [], timing }, [samples.buffer]));
    },
    cancel: (id) => {
      calls.push(`cancel ${id}`);
      return Promise.resolve();
    },
    dispose: () => {
      calls.push('dispose');
      return Promise.resolve();
    },
  };
}

const request = { version: 'supertonic-3', base: { kind: 'hub' }, voices: ['F1'], preferWebGpu: false } as const;

describe('the voice worker client', () => {
  it('starts no worker until it is first used', async () => {
    const { factory, started } = fakeWorkers(service([]));
    const client = new TtsClient(factory);
    await client.cancel(3);
    expect(started).toHaveLength(0);
    await client.voices();
    expect(started).toHaveLength(1);
    await client.dispose();
  });

  it('loads once for callers that ask together, passing progress back through the worker boundary', async () => {
    const calls: string[] = [];
    const { factory } = fakeWorkers(service(calls));
    const client = new TtsClient(factory);
    const progress: LoadProgress[] = [];
    const [a, b] = await Promise.all([client.load(request, (p) => progress.push(p)), client.load(request, () => undefined)]);
    expect(a).toEqual(result);
    expect(b).toEqual(result);
    expect(calls.filter((c) => c === 'load')).toHaveLength(1);
    expect(progress).toEqual([{ bytesDone: 5, bytesTotal: 10, file: 'onnx/tts.json' }]);
    await client.dispose();
  });

  it('receives each piece’s PCM with its utterance and piece', async () => {
    const calls: string[] = [];
    const { factory } = fakeWorkers(service(calls));
    const client = new TtsClient(factory);
    const piece = await client.speak({ utteranceId: 2, piece: 1, text: 'Hi.', lang: 'en', voice: 'F1', steps: 8, speed: 1.05 });
    expect(piece?.samples).toBeInstanceOf(Float32Array);
    expect(Array.from(piece?.samples ?? [])).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(piece).toMatchObject({ utteranceId: 2, piece: 1, sampleRateHz: 44_100 });
    await client.cancel(2);
    expect(calls).toEqual(['speak 1', 'cancel 2']);
    await client.dispose();
  });

  it('disposes the engine and terminates the worker, and starts a fresh one if used again', async () => {
    const calls: string[] = [];
    const { factory, started } = fakeWorkers(service(calls));
    const client = new TtsClient(factory);
    await client.load(request, () => undefined);
    await client.dispose();
    expect(calls.at(-1)).toBe('dispose');
    expect(started[0]?.terminated).toBe(true);
    await client.voices();
    expect(started).toHaveLength(2);
    await client.dispose();
  });
});
