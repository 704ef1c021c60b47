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
 *
 * Keeping up is decided in core (common/speaking/pace.ts); this adapter only feeds it. It keeps this
 * device's cost (`observeCost` over each piece's timing from the worker), hands the worker that cost,
 * the player's gap and the bot's floor with every piece (so a piece that would be late is made with
 * fewer steps), and reports its `Pace` — the pieces still to make and the audio still queued, as
 * `paceOf` estimates them — whenever that changes, for the conversation to size the next piece.
 */
import { resolveOptions } from '../../../common/options';
import type { Limits } from '../../../common/options';
import { observeCost, paceOf, playedUntil, SAFE_COST } from '../../../common/speaking/pace';
import type { Making, Pace, VoiceCost } from '../../../common/speaking/pace';
import type { SpokenPiece, TtsApi } from '../../../common/voice/api';
import type { Language } from '../../../common/voice/text';
import type { AudioPlayer } from '../audio/player';
import { DeviceVoiceError, failureListeners } from './speaker';
import type { SpeakRequest, Speaker } from './speaker';
import { sayWord } from '../words';

/** The on-device voice as the reader set it, read for each piece so a change in settings applies. */
export interface DeviceVoice {
  /** One of the engine's voices (`F1`…`M5`). */
  name: string;
  lang: Language;
  /** Speaking rate, 0.5–2; 1.05 is the model's own pace. */
  speed: number;
}

interface DeviceSpeakerOptions {
  /**
   * Pieces asked of the worker and not yet handed to the player, at most. 2 keeps the worker busy
   * (the next piece waits in its queue while this one is made) without queueing the whole answer.
   * Default 2.
   */
  aheadMax: number;
}

const DEVICE_SPEAKER_DEFAULTS: Readonly<DeviceSpeakerOptions> = Object.freeze({ aheadMax: 2 });

export interface DeviceSpeakerDeps extends Partial<DeviceSpeakerOptions> {
  tts: Pick<TtsApi, 'speak' | 'cancel'>;
  player: Pick<AudioPlayer, 'play' | 'gapMs'>;
  voice: () => DeviceVoice;
  /** What making speech costs on this device, as it was kept; default `SAFE_COST`. */
  cost?: VoiceCost;
  /** The page's clock, in ms; default `Date.now` (the clock `answer.delta`'s `atMs` is on). */
  nowMs?: () => number;
}

/** The device voice, which also says how it keeps up. */
export interface DeviceSpeaker extends Speaker {
  /** Hears the voice's pace each time it changes (a piece asked, made or dropped); returns the unsubscribe. */
  onPace(listener: (pace: Pace) => void): () => void;
  /** The pace now. */
  pace(): Pace;
}

/** One piece on its way through the worker. */
interface Job {
  readonly request: SpeakRequest;
  /** When it was asked of the worker; undefined until then. */
  askedAtMs: number | undefined;
  /** What the worker made (and when), or why it could not; undefined while it is being made. */
  result: { made: SpokenPiece; atMs: number } | { error: DeviceVoiceError } | undefined;
}

const LIMITS: Limits<DeviceSpeakerOptions> = { aheadMax: { min: 1, whole: true } };


export function createDeviceSpeaker(deps: DeviceSpeakerDeps): DeviceSpeaker {
  const { aheadMax } = resolveOptions('deviceSpeaker', DEVICE_SPEAKER_DEFAULTS, deps, LIMITS);
  const now = deps.nowMs ?? (() => Date.now());
  const failures = failureListeners();
  const paceListeners = new Set<(pace: Pace) => void>();
  /** Pieces not yet handed to the player, in the order they are heard. */
  let queue: Job[] = [];
  let cost = deps.cost ?? SAFE_COST;
  /** When the audio handed to the player will have played out (0: none), and whose was handed last. */
  let played = { utteranceId: -1, untilMs: 0 };
  /** When the worker last answered: it began on the next piece then, if it had one. */
  let lastAnswerMs = Number.NEGATIVE_INFINITY;
  let disposed = false;

  function pace(): Pace {
    const atMs = now();
    let first = true;
    const making = queue.flatMap((job): Making[] => {
      const chars = job.request.text.length;
      const { steps } = job.request;
      if (job.result !== undefined) {
        return 'made' in job.result ? [{ chars, steps, made: { atMs: job.result.atMs, audioMs: job.result.made.timing.audioMs } }] : [];
      }
      // The worker makes pieces in the order asked: only the first one unmade is under way.
      const since = first && job.askedAtMs !== undefined ? Math.max(job.askedAtMs, lastAnswerMs) : undefined;
      first = false;
      return [since === undefined ? { chars, steps } : { chars, steps, sinceMs: since }];
    });
    return paceOf({ atMs, playsUntilMs: played.untilMs, making, gapMs: deps.player.gapMs, speed: deps.voice().speed, cost });
  }

  function tellPace(): void {
    if (paceListeners.size === 0) return;
    const current = pace();
    for (const listener of [...paceListeners]) listener(current);
  }

  /** Hands every finished piece at the head of the queue to the player, in order. */
  function flush(): void {
    for (let job = queue[0]; job?.result !== undefined; job = queue[0]) {
      queue.shift();
      const { utteranceId, piece } = job.request;
      if ('made' in job.result) {
        const { samples, sampleRateHz, timing } = job.result.made;
        // The player plays utterances one after another, so an earlier one's audio still counts.
        played = { utteranceId, untilMs: playedUntil(played.untilMs, now(), timing.audioMs, deps.player.gapMs) };
        deps.player.play({ utteranceId, piece }, samples, sampleRateHz);
      } else {
        failures.report({ utteranceId, piece, voice: 'device', reason: job.result.error.message, error: job.result.error });
      }
    }
    askMore();
    tellPace();
  }

  function settle(job: Job, result: NonNullable<Job['result']>): void {
    lastAnswerMs = now();
    if (!queue.includes(job)) return; // cancelled while it was made: thrown away
    job.result = result;
    if ('made' in result) cost = observeCost(cost, result.made.timing);
    flush();
  }

  function ask(job: Job): void {
    job.askedAtMs = now();
    const voice = deps.voice();
    const { utteranceId, piece, text, steps, floor } = job.request;
    const pacing = { floor, gapMs: deps.player.gapMs, cost };
    deps.tts.speak({ utteranceId, piece, text, steps, voice: voice.name, lang: voice.lang, speed: voice.speed, pacing }).then(
      (made) => {
        // The worker answers null only for an utterance it was told to cancel; one this speaker did
        // not cancel would otherwise leave the turn waiting for a piece that never plays.
        if (made === null) settle(job, { error: new DeviceVoiceError(sayWord('page-voice.device-could-not'), { cause: 'the worker dropped the piece' }) });
        else settle(job, { made, atMs: now() });
      },
      (cause: unknown) => {
        settle(job, { error: new DeviceVoiceError(sayWord('page-voice.device-could-not'), { cause }) });
      },
    );
  }

  function askMore(): void {
    let asked = queue.filter((job) => job.askedAtMs !== undefined).length;
    for (const job of queue) {
      if (asked >= aheadMax) return;
      if (job.askedAtMs !== undefined) continue;
      ask(job);
      asked += 1;
    }
  }

  return {
    speak(request) {
      if (disposed) return;
      queue.push({ request, askedAtMs: undefined, result: undefined });
      askMore();
      tellPace();
    },
    cancel(utteranceId) {
      // Its audio is stopped with it (the machine's stopAudio): none of it plays any more.
      if (played.utteranceId === utteranceId) played = { utteranceId: -1, untilMs: 0 };
      const gone = queue.filter((job) => job.request.utteranceId === utteranceId);
      if (gone.length === 0) {
        tellPace();
        return;
      }
      queue = queue.filter((job) => job.request.utteranceId !== utteranceId);
      // A worker that cannot be told has nothing of this utterance to send: it is gone or broken,
      // and the next piece asked of it reports that.
      if (gone.some((job) => job.askedAtMs !== undefined)) deps.tts.cancel(utteranceId).catch(() => undefined);
      flush();
    },
    onFailed: failures.add,
    onPace(listener) {
      paceListeners.add(listener);
      return () => {
        paceListeners.delete(listener);
      };
    },
    pace,
    dispose() {
      disposed = true;
      for (const utteranceId of new Set(queue.filter((job) => job.askedAtMs !== undefined).map((job) => job.request.utteranceId))) {
        deps.tts.cancel(utteranceId).catch(() => undefined);
      }
      queue = [];
      failures.clear();
      paceListeners.clear();
    },
  };
}
