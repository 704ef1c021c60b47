import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MICROPHONE,
  MicrophoneError,
  microphoneErrorFrom,
  openMicrophoneLevel,
  resolveMicrophone,
} from '../../../src/platform/audio/microphone';
import type { LevelFrame, MediaDevicesLike } from '../../../src/platform/audio/microphone';
import type { LevelMeterMessage, LevelMeterOptions } from '../../../src/platform/audio/peakFrames';

/** The AudioWorkletNodes the code under test made, with what they were made with. */
const nodes: FakeWorkletNode[] = [];

class FakeWorkletNode {
  readonly port = {
    onmessage: null as ((event: MessageEvent<LevelMeterMessage>) => void) | null,
    closed: false,
    close() {
      this.closed = true;
    },
  };
  disconnected = false;

  constructor(
    readonly context: unknown,
    readonly name: string,
    readonly options: AudioWorkletNodeOptions,
  ) {
    nodes.push(this);
  }

  disconnect(): void {
    this.disconnected = true;
  }

  /** What the worklet would post for one frame. */
  post(message: LevelMeterMessage): void {
    this.port.onmessage?.({ data: message } as MessageEvent<LevelMeterMessage>);
  }
}

function fakeContext(sampleRate = 48_000, addModule: () => Promise<void> = () => Promise.resolve()) {
  const source = { connectedTo: null as unknown, disconnected: false };
  const loadModule = vi.fn(addModule);
  const context = {
    sampleRate,
    audioWorklet: { addModule: loadModule },
    createMediaStreamSource: vi.fn(() => ({
      connect: (node: unknown) => {
        source.connectedTo = node;
      },
      disconnect: () => {
        source.disconnected = true;
      },
    })),
  };
  return { context: context as unknown as AudioContext, source, loadModule };
}

function fakeStream() {
  const endedListeners: (() => void)[] = [];
  const track = {
    stopped: false,
    stop() {
      track.stopped = true;
    },
    getSettings: () => ({ echoCancellation: true, sampleRate: 48_000 }),
    addEventListener: (_type: string, listener: () => void) => endedListeners.push(listener),
    removeEventListener: (_type: string, listener: () => void) => {
      endedListeners.splice(endedListeners.indexOf(listener), 1);
    },
  };
  const stream = { getAudioTracks: () => [track], getTracks: () => [track] };
  const end = () => {
    for (const listener of [...endedListeners]) listener();
  };
  return { stream: stream as unknown as MediaStream, track, end };
}

function devices(answer: () => Promise<MediaStream>) {
  const getUserMedia = vi.fn(answer);
  return { devices: { getUserMedia } as MediaDevicesLike, getUserMedia };
}

beforeEach(() => {
  nodes.length = 0;
  vi.stubGlobal('AudioWorkletNode', FakeWorkletNode);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('microphoneErrorFrom', () => {
  it.each([
    ['NotAllowedError', 'refused'],
    ['SecurityError', 'refused'],
    ['NotFoundError', 'missing'],
    ['OverconstrainedError', 'missing'],
    ['NotReadableError', 'unavailable'],
    ['AbortError', 'unavailable'],
    ['SomethingNewError', 'unavailable'],
  ])('reads a %s as %s, keeping it as the cause', (name, problem) => {
    const thrown = new DOMException('browser words', name);
    const error = microphoneErrorFrom(thrown);
    expect(error).toBeInstanceOf(MicrophoneError);
    expect(error.problem).toBe(problem);
    expect(error.cause).toBe(thrown);
    expect(error.message).toMatch(/typed/);
  });

  it('passes a MicrophoneError through as it is', () => {
    const error = new MicrophoneError('missing', 'No microphone.');
    expect(microphoneErrorFrom(error)).toBe(error);
  });
});

describe('resolveMicrophone', () => {
  it('asks for echo cancellation unless told otherwise, with 10 ms frames', () => {
    expect(resolveMicrophone()).toEqual(MICROPHONE);
    expect(MICROPHONE.echoCancellation).toBe(true);
    expect(resolveMicrophone({ autoGainControl: false }).autoGainControl).toBe(false);
  });

  it('refuses a frame length the gate could not use, naming it', () => {
    expect(() => resolveMicrophone({ frameMs: 0 })).toThrow('microphone.frameMs is 0; it must be a number from 1 to 100.');
  });
});

describe('openMicrophoneLevel', () => {
  it('says a page with no capture (an http page) is unsupported, without asking for anything', async () => {
    vi.stubGlobal('navigator', {});
    const { context, loadModule } = fakeContext();
    const opening = openMicrophoneLevel(context);
    await expect(opening).rejects.toMatchObject({ name: 'MicrophoneError', problem: 'unsupported' });
    expect(loadModule).not.toHaveBeenCalled();
  });

  it('turns a refusal into a MicrophoneError that says refused', async () => {
    const { context } = fakeContext();
    const { devices: refusing } = devices(() => Promise.reject(new DOMException('denied', 'NotAllowedError')));
    await expect(openMicrophoneLevel(context, {}, refusing)).rejects.toMatchObject({ problem: 'refused' });
    expect(nodes).toEqual([]);
  });

  it('asks for the capture with the options given, after the meter is loaded', async () => {
    const { context, loadModule } = fakeContext();
    const { stream } = fakeStream();
    const order: string[] = [];
    loadModule.mockImplementation(() => {
      order.push('meter');
      return Promise.resolve();
    });
    const { devices: granting, getUserMedia } = devices(() => {
      order.push('capture');
      return Promise.resolve(stream);
    });
    await openMicrophoneLevel(context, { echoCancellation: false, autoGainControl: false, noiseSuppression: false }, granting);
    expect(order).toEqual(['meter', 'capture']);
    expect(getUserMedia).toHaveBeenCalledWith({ audio: { echoCancellation: false, autoGainControl: false, noiseSuppression: false }, video: false });
  });

  it('hands out each frame with its time on the audio clock in ms', async () => {
    const { context, source } = fakeContext(44_100);
    const { stream } = fakeStream();
    const microphone = await openMicrophoneLevel(context, {}, devices(() => Promise.resolve(stream)).devices);
    const [node] = nodes;
    expect(node?.options.processorOptions).toEqual({ frameSamples: 441 } satisfies LevelMeterOptions);
    expect(node?.options.numberOfOutputs).toBe(0);
    expect(source.connectedTo).toBe(node);
    const frames: LevelFrame[] = [];
    microphone.onFrame((frame) => frames.push(frame));
    node?.post({ peak: 0.25, endSample: 44_100 });
    node?.post({ peak: 0.5, endSample: 44_541 });
    expect(frames).toEqual([
      { level: 0.25, atMs: 1000 },
      { level: 0.5, atMs: 1010 },
    ]);
    expect(microphone.settings.echoCancellation).toBe(true);
  });

  it('releases the device on stop and hands out nothing after', async () => {
    const { context, source } = fakeContext();
    const { stream, track } = fakeStream();
    const microphone = await openMicrophoneLevel(context, {}, devices(() => Promise.resolve(stream)).devices);
    const frames: LevelFrame[] = [];
    microphone.onFrame((frame) => frames.push(frame));
    const [node] = nodes;
    microphone.stop();
    microphone.stop();
    node?.post({ peak: 0.9, endSample: 480 });
    expect(frames).toEqual([]);
    expect(track.stopped).toBe(true);
    expect(source.disconnected).toBe(true);
    expect(node?.disconnected).toBe(true);
    expect(node?.port.closed).toBe(true);
  });

  it('says once when the capture ends by itself, and not after a stop', async () => {
    const { context } = fakeContext();
    const first = fakeStream();
    const microphone = await openMicrophoneLevel(context, {}, devices(() => Promise.resolve(first.stream)).devices);
    const ended = vi.fn();
    microphone.onEnded(ended);
    first.end();
    first.end();
    expect(ended).toHaveBeenCalledTimes(1);

    const second = fakeStream();
    const stopped = await openMicrophoneLevel(context, {}, devices(() => Promise.resolve(second.stream)).devices);
    const notEnded = vi.fn();
    stopped.onEnded(notEnded);
    stopped.stop();
    second.end();
    expect(notEnded).not.toHaveBeenCalled();
  });

  it('loads the meter once per context, and again after a failed load', async () => {
    let fail = true;
    const { context, loadModule } = fakeContext(48_000, () => (fail ? Promise.reject(new Error('network')) : Promise.resolve()));
    const granting = devices(() => Promise.resolve(fakeStream().stream)).devices;
    await expect(openMicrophoneLevel(context, {}, granting)).rejects.toMatchObject({ problem: 'unavailable' });
    fail = false;
    await openMicrophoneLevel(context, {}, granting);
    await openMicrophoneLevel(context, {}, granting);
    expect(loadModule).toHaveBeenCalledTimes(2);
  });
});
