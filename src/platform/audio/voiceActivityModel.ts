/**
 * Voice activity on the page: Silero VAD v5 (the graph `@ricky0123/vad-web` ships) in a worker of
 * its own (workers/voiceActivity.worker.ts), hearing the echo-cancelled microphone the levels come
 * from. The level meter worklet sends the capture at 16 kHz straight to the worker on a port; the
 * page gets one small message per 32 ms frame — how likely it was speech, read through the core's
 * hysteresis (`hearActivity`) — timed on the AudioContext's clock, as the level frames are.
 *
 * One worker serves the page for its life; opening the microphone again starts the model afresh on
 * the new capture. Until the model has loaded (or where it cannot), no frames come, and the voice's
 * yielding decides from words and time alone.
 */
import graphUrl from '@ricky0123/vad-web/dist/silero_vad_v5.onnx?url';
import { hearActivity, NO_SPEECH } from '../../../common/voiceActivity';
import type { VoiceActivityReply, VoiceActivityRequest, VoiceActivityState } from '../../../common/voiceActivity';
import { HEARING } from '../../core/hearing/tuning';
import type { MicrophoneLevel } from './microphone';

/** One frame of the model's hearing. */
export interface VoiceActivityFrame {
  /** When the frame's last sample was captured, in ms on the AudioContext's clock. */
  atMs: number;
  /** How likely the frame is speech, 0..1. */
  probability: number;
  /** Whether speech is going on, after hysteresis. */
  speech: boolean;
}

export interface VoiceActivity {
  /** Calls `listener` with every frame from now on; the returned function stops that. */
  onFrame(listener: (frame: VoiceActivityFrame) => void): () => void;
  /** Stops hearing; frames still in flight are dropped. Idempotent. */
  stop(): void;
}

/** Where the worker comes from; a test supplies its own. */
export type WorkerLike = Pick<Worker, 'postMessage' | 'addEventListener' | 'removeEventListener'>;

let pageWorker: Worker | null = null;

function voiceActivityWorker(): Worker {
  pageWorker ??= new Worker(new URL('../../../workers/voiceActivity.worker.ts', import.meta.url), { type: 'module', name: 'confab-voice-activity' });
  return pageWorker;
}

/**
 * Starts hearing `microphone` (opened on `context`) for speech. Frames begin once the worker has
 * the model; a model that cannot be had is said once on the console, and no frames come.
 */
export function startVoiceActivity(context: BaseAudioContext, microphone: Pick<MicrophoneLevel, 'sendSpeechTo'>, worker: WorkerLike = voiceActivityWorker()): VoiceActivity {
  const listeners = new Set<(frame: VoiceActivityFrame) => void>();
  const msPerSample = 1000 / context.sampleRate;
  let state: VoiceActivityState = NO_SPEECH;
  let stopped = false;

  const heard = (event: MessageEvent<VoiceActivityReply>) => {
    const reply = event.data;
    if (stopped) return;
    if (reply.kind === 'failed') {
      console.warn(`Voice activity is off: ${reply.reason} Talking over the voice is judged by words alone.`);
      return;
    }
    if (reply.kind !== 'frame') return;
    state = hearActivity(state, reply.probability, HEARING.voiceActivity);
    const frame: VoiceActivityFrame = { atMs: reply.endSample * msPerSample, probability: reply.probability, speech: state.speech };
    for (const listener of listeners) listener(frame);
  };
  worker.addEventListener('message', heard);

  const channel = new MessageChannel();
  const request: VoiceActivityRequest = { graphUrl };
  worker.postMessage(request, [channel.port2]);
  microphone.sendSpeechTo(channel.port1);

  return {
    onFrame(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      worker.removeEventListener('message', heard);
      listeners.clear();
    },
  };
}
