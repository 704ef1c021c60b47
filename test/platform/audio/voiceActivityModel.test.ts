/**
 * The page's side of voice activity (voiceActivityModel.ts), with a stand-in worker: the capture
 * is sent on to the worker on a port of its own (the page never handles the samples), each frame
 * the worker hears comes back timed on the AudioContext's clock and read through the core's
 * hysteresis, a model that cannot be had is said once, and a stopped one says nothing more.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VoiceActivityReply, VoiceActivityRequest } from '../../../common/voiceActivity';
import { startVoiceActivity } from '../../../src/platform/audio/voiceActivityModel';
import type { VoiceActivityFrame, WorkerLike } from '../../../src/platform/audio/voiceActivityModel';

/** A worker that notes what it is asked and replies when told to. */
class StandInWorker {
  readonly requests: { request: VoiceActivityRequest; ports: MessagePort[] }[] = [];
  readonly #listeners = new Set<(event: MessageEvent<VoiceActivityReply>) => void>();

  readonly worker = {
    postMessage: (request: VoiceActivityRequest, transfer: Transferable[]) => {
      this.requests.push({ request, ports: transfer as MessagePort[] });
    },
    addEventListener: (_type: string, listener: (event: MessageEvent<VoiceActivityReply>) => void) => {
      this.#listeners.add(listener);
    },
    removeEventListener: (_type: string, listener: (event: MessageEvent<VoiceActivityReply>) => void) => {
      this.#listeners.delete(listener);
    },
  } as unknown as WorkerLike;

  reply(data: VoiceActivityReply): void {
    for (const listener of this.#listeners) listener({ data } as MessageEvent<VoiceActivityReply>);
  }
}

const context = { sampleRate: 48_000 } as BaseAudioContext;

function started() {
  const worker = new StandInWorker();
  const sentTo: MessagePort[] = [];
  const activity = startVoiceActivity(context, { sendSpeechTo: (port) => sentTo.push(port) }, worker.worker);
  const frames: VoiceActivityFrame[] = [];
  activity.onFrame((frame) => frames.push(frame));
  return { worker, sentTo, activity, frames };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('voice activity on the page', () => {
  it('hands the microphone one end of a channel and the worker the other, with the graph to open', () => {
    const { worker, sentTo } = started();
    expect(sentTo).toHaveLength(1);
    expect(worker.requests).toHaveLength(1);
    expect(worker.requests[0]?.request.graphUrl).toMatch(/silero_vad_v5.*\.onnx/);
    expect(worker.requests[0]?.ports).toHaveLength(1);
    expect(worker.requests[0]?.ports[0]).not.toBe(sentTo[0]);
    for (const port of [...sentTo, ...(worker.requests[0]?.ports ?? [])]) port.close();
  });

  it('times each frame on the audio clock and reads it through the hysteresis: speech begins at 0.5, ends after three frames under 0.35', () => {
    const { worker, frames } = started();
    worker.reply({ kind: 'ready' });
    const probabilities = [0.1, 0.6, 0.4, 0.2, 0.3, 0.1, 0.1];
    probabilities.forEach((probability, n) => {
      worker.reply({ kind: 'frame', endSample: 48_000 + (n + 1) * 1536, probability });
    });
    expect(frames.map((f) => f.speech)).toEqual([false, true, true, true, true, false, false]);
    expect(frames[0]?.atMs).toBeCloseTo(1032, 6);
    expect(frames.map((f) => f.probability)).toEqual(probabilities);
  });

  it('says once on the console that it is off when the model cannot be had, and gives no frames', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { worker, frames } = started();
    worker.reply({ kind: 'failed', reason: 'The voice activity model could not be fetched (404).' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('could not be fetched (404)');
    expect(frames).toEqual([]);
  });

  it('says nothing more once stopped', () => {
    const { worker, activity, frames } = started();
    activity.stop();
    worker.reply({ kind: 'frame', endSample: 1536, probability: 0.9 });
    expect(frames).toEqual([]);
  });
});
