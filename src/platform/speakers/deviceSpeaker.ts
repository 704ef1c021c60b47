/**
 * The on-device voice: each piece is synthesised by the Supertonic worker (through its comlink
 * client) and handed to the player as float PCM the moment it exists — never the whole answer first.
 *
 * The next piece is being made while the one before it plays, but only a few are asked of the worker
 * at once (`aheadMax`): it makes them one at a time anyway, and a piece asked for is work an
 * interruption throws away. Pieces reach the player in the order they were asked for, whatever order
 * their synthesis finishes in; a piece that could not be made is reported and skipped, so the pieces
 * after it still play.
 *
 * Cancelling an utterance drops its queued pieces, tells the worker to abandon it (its piece in
 * flight stops after the current graph run, queued ones never start), and throws away whatever the
 * worker still sends back for it.
 */
import type { SpokenPiece, TtsApi } from '../../core/voice/api';
import type { Language } from '../../core/voice/text';
import type { AudioPlayer } from '../audio/player';
import { DeviceVoiceError, failureListeners } from './speaker';
import type { SpeakRequest, Speaker } from './speaker';

/** The on-device voice as the reader set it, read for each piece so a change in settings applies. */
export interface DeviceVoice {
  /** One of the engine's voices (`F1`…`M5`). */
  name: string;
  lang: Language;
  /** Speaking rate, 0.5–2; 1.05 is the model's own pace. */
  speed: number;
}

export interface DeviceSpeakerOptions {
  /**
   * Pieces asked of the worker and not yet handed to the player, at most. 2 keeps the worker busy
   * (the next piece waits in its queue while this one is made) without queueing the whole answer.
   * Default 2.
   */
  aheadMax: number;
}

export const DEVICE_SPEAKER_DEFAULTS: Readonly<DeviceSpeakerOptions> = Object.freeze({ aheadMax: 2 });

export interface DeviceSpeakerDeps extends Partial<DeviceSpeakerOptions> {
  tts: Pick<TtsApi, 'speak' | 'cancel'>;
  player: Pick<AudioPlayer, 'play'>;
  voice: () => DeviceVoice;
}

/** One piece on its way through the worker. */
interface Job {
  readonly request: SpeakRequest;
  asked: boolean;
  /** What the worker made, or why it could not; undefined while it is being made. */
  result: { made: SpokenPiece } | { error: DeviceVoiceError } | undefined;
}

function mergeOptions(deps: DeviceSpeakerDeps): DeviceSpeakerOptions {
  const aheadMax = deps.aheadMax ?? DEVICE_SPEAKER_DEFAULTS.aheadMax;
  if (!Number.isInteger(aheadMax) || aheadMax < 1) {
    throw new RangeError(`The device speaker's aheadMax is ${aheadMax}; give a whole number of pieces, 1 or more.`);
  }
  return { aheadMax };
}

const COULD_NOT =
  'This device’s voice could not say part of the answer, so that part is only written; reload the page if it keeps happening.';

export function createDeviceSpeaker(deps: DeviceSpeakerDeps): Speaker {
  const { aheadMax } = mergeOptions(deps);
  const failures = failureListeners();
  /** Pieces not yet handed to the player, in the order they are heard. */
  let queue: Job[] = [];
  let disposed = false;

  /** Hands every finished piece at the head of the queue to the player, in order. */
  function flush(): void {
    for (let job = queue[0]; job?.result !== undefined; job = queue[0]) {
      queue.shift();
      const { utteranceId, piece } = job.request;
      if ('made' in job.result) {
        deps.player.play({ utteranceId, piece }, job.result.made.samples, job.result.made.sampleRateHz);
      } else {
        failures.report({ utteranceId, piece, voice: 'device', reason: job.result.error.message, error: job.result.error });
      }
    }
    askMore();
  }

  function settle(job: Job, result: NonNullable<Job['result']>): void {
    if (!queue.includes(job)) return; // cancelled while it was made: thrown away
    job.result = result;
    flush();
  }

  function ask(job: Job): void {
    job.asked = true;
    const voice = deps.voice();
    const { utteranceId, piece, text, steps } = job.request;
    deps.tts.speak({ utteranceId, piece, text, steps, voice: voice.name, lang: voice.lang, speed: voice.speed }).then(
      (made) => {
        // The worker answers null only for an utterance it was told to cancel; one this speaker did
        // not cancel would otherwise leave the turn waiting for a piece that never plays.
        if (made === null) settle(job, { error: new DeviceVoiceError(COULD_NOT, { cause: 'the worker dropped the piece' }) });
        else settle(job, { made });
      },
      (cause: unknown) => {
        settle(job, { error: new DeviceVoiceError(COULD_NOT, { cause }) });
      },
    );
  }

  function askMore(): void {
    let asked = queue.filter((job) => job.asked).length;
    for (const job of queue) {
      if (asked >= aheadMax) return;
      if (job.asked) continue;
      ask(job);
      asked += 1;
    }
  }

  return {
    speak(request) {
      if (disposed) return;
      queue.push({ request, asked: false, result: undefined });
      askMore();
    },
    cancel(utteranceId) {
      const gone = queue.filter((job) => job.request.utteranceId === utteranceId);
      if (gone.length === 0) return;
      queue = queue.filter((job) => job.request.utteranceId !== utteranceId);
      // A worker that cannot be told has nothing of this utterance to send: it is gone or broken,
      // and the next piece asked of it reports that.
      if (gone.some((job) => job.asked)) deps.tts.cancel(utteranceId).catch(() => undefined);
      flush();
    },
    onFailed: failures.add,
    dispose() {
      disposed = true;
      for (const utteranceId of new Set(queue.filter((job) => job.asked).map((job) => job.request.utteranceId))) {
        deps.tts.cancel(utteranceId).catch(() => undefined);
      }
      queue = [];
      failures.clear();
    },
  };
}
