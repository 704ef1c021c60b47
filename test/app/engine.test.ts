import { afterEach, describe, expect, it, vi } from 'vitest';
import { deviceEngine } from '../../src/app/engine';
import type { EngineState } from '../../src/app/engine';
import type { LoadProgress, LoadRequest } from '../../common/voice/api';

/** A failed load as comlink hands it to the page: a plain Error with the worker's name and message. */
function acrossComlink(failure: string): Error {
  return Object.assign(new Error(failure), { name: 'VoiceLoadError' });
}

const UNREACHABLE = 'The voice could not be started: its files could not be downloaded. Check the connection.';

function fakeClient(fails = false) {
  const calls: string[] = [];
  const client = {
    load: (request: LoadRequest, onProgress: (progress: LoadProgress) => void) => {
      calls.push(`load ${request.voices.join(',')}`);
      onProgress({ bytesDone: 5, bytesTotal: 10, file: 'onnx/a.onnx' });
      return fails ? Promise.reject(acrossComlink('unreachable')) : Promise.resolve({ executionProvider: 'wasm' as const });
    },
    speak: () => {
      calls.push('speak');
      return Promise.resolve(null);
    },
    cancel: () => Promise.resolve(),
    dispose: () => {
      calls.push('dispose');
      return Promise.resolve();
    },
  };
  return { client, calls };
}

const model: Parameters<typeof deviceEngine>[0]['model'] = { version: 'supertonic-3', base: { kind: 'hub' } };

describe('the on-device engine', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('loads once, reporting progress, and a piece waits for it', async () => {
    const states: EngineState[] = [];
    const { client, calls } = fakeClient();
    const engine = deviceEngine({ model, voice: () => 'F2', onState: (s) => states.push(s), client: () => client as never });
    await engine.tts.speak({ utteranceId: 1, piece: 0, text: 'Hi.' } as never);
    await engine.start();
    expect(calls).toEqual(['load F2', 'speak']);
    expect(states).toEqual([{ kind: 'starting' }, { kind: 'downloading', bytesDone: 5, bytesTotal: 10 }, { kind: 'ready', onDevice: 'wasm' }]);
    engine.dispose();
    expect(calls.at(-1)).toBe('dispose');
  });

  it('says why it could not start in the person’s words chosen by the failure’s kind, the error itself only to the console, and reports nothing once disposed', async () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const states: EngineState[] = [];
    const { client } = fakeClient(true);
    const engine = deviceEngine({ model, voice: () => 'F1', onState: (s) => states.push(s), client: () => client as never });
    await expect(engine.start()).rejects.toThrow(UNREACHABLE);
    expect(states.at(-1)).toEqual({ kind: 'failed', reason: UNREACHABLE });
    expect(warned).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ name: 'VoiceLoadError', message: 'unreachable' }));
    engine.dispose();
    const count = states.length;
    await engine.start().catch(() => undefined);
    expect(states).toHaveLength(count);
  });

  it('says a failure of no known kind in words of its own, never the error’s message', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const states: EngineState[] = [];
    const client = { ...fakeClient().client, load: () => Promise.reject(new Error('no WebAssembly')) };
    const engine = deviceEngine({ model, voice: () => 'F1', onState: (s) => states.push(s), client: () => client });
    await expect(engine.start()).rejects.toThrow('The voice could not be started: something went wrong on this device. Try again, or reload the page.');
    expect(JSON.stringify(states)).not.toContain('WebAssembly');
  });

  it('stays failed, refusing each piece with the one sentence, until asked to try again; then loads in a fresh worker', async () => {
    const states: EngineState[] = [];
    const made: ReturnType<typeof fakeClient>[] = [];
    let hubAway = true;
    const engine = deviceEngine({
      model,
      voice: () => 'F1',
      onState: (s) => states.push(s),
      client: () => {
        const next = fakeClient(hubAway);
        made.push(next);
        return next.client as never;
      },
    });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(engine.start()).rejects.toThrow(UNREACHABLE);
    await expect(engine.tts.speak({ utteranceId: 1, piece: 0, text: 'Hi.' } as never)).rejects.toThrow('The voice could not be started');
    await expect(engine.tts.speak({ utteranceId: 1, piece: 1, text: 'There.' } as never)).rejects.toThrow('The voice could not be started');
    // Said once: one load, one failure.
    expect(made).toHaveLength(1);
    expect(made[0]?.calls).toEqual(['load F1']);
    expect(states.filter((s) => s.kind === 'failed')).toHaveLength(1);

    hubAway = false;
    await engine.retry();
    expect(made).toHaveLength(2);
    expect(made[0]?.calls.at(-1)).toBe('dispose');
    expect(states.at(-1)).toEqual({ kind: 'ready', onDevice: 'wasm' });
    await engine.tts.speak({ utteranceId: 2, piece: 0, text: 'Hi.' } as never);
    expect(made[1]?.calls).toEqual(['load F1', 'speak']);
    // Trying again once it works changes nothing.
    await engine.retry();
    expect(made).toHaveLength(2);
  });
});
