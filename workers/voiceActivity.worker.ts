/**
 * The voice activity worker: Silero VAD v5 (silero.ts) on onnxruntime-web's WASM build, hearing
 * the microphone's 16 kHz frames that the level meter worklet sends straight to it on a port, and
 * telling the page how likely each frame is speech. Apart from the voice's worker, so making a
 * piece of the answer (hundreds of ms of inference) never holds up hearing the person.
 *
 * The page posts `VoiceActivityRequest`s with the frames' port; the worker answers `VoiceActivityReply`s. A second
 * `listen` (the microphone opened again) replaces the first and starts the model afresh.
 */
import type { VoiceActivityReply, VoiceActivityRequest } from '../common/voiceActivity';
import { newestFirst } from './newestFirst';
import { openSilero } from './silero';
import type { Silero } from './silero';

declare const self: DedicatedWorkerGlobalScope;

let opening: Promise<Silero> | null = null;
let listening: MessagePort | null = null;

async function open(graphUrl: string): Promise<Silero> {
  const ort = await import('onnxruntime-web/wasm');
  // One thread: a frame is 1–2 ms of work, and threads would need a cross-origin isolated page.
  ort.env.wasm.numThreads = 1;
  const response = await fetch(graphUrl);
  if (!response.ok) throw new Error(`The voice activity model could not be fetched (${String(response.status)}).`);
  return openSilero(ort, new Uint8Array(await response.arrayBuffer()));
}

function reply(message: VoiceActivityReply): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<VoiceActivityRequest>) => {
  const frames = event.ports[0];
  if (frames === undefined) return;
  opening ??= open(event.data.graphUrl);
  opening.then(
    (silero) => {
      listening?.close();
      listening = frames;
      silero.reset();
      // One frame at a time, in order (the model's state runs from each frame to the next), and the
      // newest when it has fallen behind: the frames that waited while it loaded are not worked through.
      const hear = newestFirst<{ samples: Float32Array; endSample: number }>(
        async (frame) => {
          if (listening !== frames) return;
          reply({ kind: 'frame', endSample: frame.endSample, probability: await silero.speechIn(frame.samples) });
        },
        () => {
          silero.reset();
        },
      );
      frames.onmessage = ({ data }: MessageEvent<{ samples: Float32Array; endSample: number }>) => {
        hear(data);
      };
      reply({ kind: 'ready' });
    },
    (error: unknown) => {
      opening = null;
      reply({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
    },
  );
};
