import { describe, expect, it } from 'vitest';
import { deviceEngine } from '../../src/app/engine';
import type { EngineState } from '../../src/app/engine';
import type { LoadProgress, LoadRequest } from '../../common/voice/api';

function fakeClient(fails = false) {
  const calls: string[] = [];
  const client = {
    load: (request: LoadRequest, onProgress: (progress: LoadProgress) => void) => {
      calls.push(`load ${request.voices.join(',')}`);
      onProgress({ bytesDone: 5, bytesTotal: 10, file: 'onnx/a.onnx' });
      return fails ? Promise.reject(new Error('no WebAssembly')) : Promise.resolve({ executionProvider: 'wasm' as const });
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

  it('says why it could not start, and reports nothing once disposed', async () => {
    const states: EngineState[] = [];
    const { client } = fakeClient(true);
    const engine = deviceEngine({ model, voice: () => 'F1', onState: (s) => states.push(s), client: () => client as never });
    await expect(engine.start()).rejects.toThrow('The voice could not be started: no WebAssembly');
    expect(states.at(-1)).toEqual({ kind: 'failed', reason: 'The voice could not be started: no WebAssembly' });
    engine.dispose();
    const count = states.length;
    await engine.start().catch(() => undefined);
    expect(states).toHaveLength(count);
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
    await expect(engine.start()).rejects.toThrow('The voice could not be started: no WebAssembly');
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
