/**
 * What the audio harness pages share: the player's schedule read off the context it plays on,
 * fetching and decoding the answer's pieces, the capture's marker, and waiting.
 */
import type { Hearing } from '../../../src/app/hearing';
import { audioContextInGesture } from '../../../src/platform/audio/audioContext';
import { createAudioPlayer } from '../../../src/platform/audio/player';

/** One buffer source the player started: when, and for how long, on the audio clock in ms. */
export interface ScheduledSource {
  atMs: number;
  durationMs: number;
  /** When the player had it stop (a stop, or a piece said again), if it did: it may then have ended before its last sample. */
  stopAtMs?: number;
}

/**
 * The page's context, seen through a proxy that notes every buffer source the player starts: the
 * player's own schedule, read rather than inferred.
 */
function notingStarts(context: AudioContext, sources: ScheduledSource[]): AudioContext {
  return new Proxy(context, {
    get(target, key) {
      if (key === 'createBufferSource') {
        return () => {
          const source = target.createBufferSource();
          const start = source.start.bind(source);
          const stop = source.stop.bind(source);
          let noted: ScheduledSource | undefined;
          source.start = (when = 0) => {
            noted = { atMs: when * 1000, durationMs: (source.buffer?.duration ?? 0) * 1000 };
            sources.push(noted);
            start(when);
          };
          source.stop = (when = 0) => {
            if (noted !== undefined) noted.stopAtMs = Math.max(when, target.currentTime) * 1000;
            stop(when);
          };
          return source;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

async function decode(context: AudioContext, url: string): Promise<AudioBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`The harness could not fetch ${url} (${response.status}); the test set-up should serve it.`);
  return context.decodeAudioData(await response.arrayBuffer());
}

/** How long a run waits for the capture's marker before it says the fake microphone is not set up. */
const MARKER_PATIENCE_MS = 5000;

/**
 * The end of the first frame `hearing` judges over half of `markerLevel`: the capture's marker
 * began within the frame before it. Rejects, saying how to launch Chromium, when none comes.
 */
export function markerHeard(hearing: Pick<Hearing, 'onHeard'>, markerLevel: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`No marker reached the microphone in ${MARKER_PATIENCE_MS} ms; launch Chromium with --use-file-for-fake-audio-capture.`));
    }, MARKER_PATIENCE_MS);
    const stop = hearing.onHeard((frame) => {
      if (frame.level < markerLevel / 2) return;
      clearTimeout(timer);
      stop();
      resolve(frame.atMs);
    });
  });
}

/** A harness run's audio: the page's context (running), the real player noting every source it starts, the answer's pieces decoded, and the audio clock. */
export async function harnessPlayer(config: { pieces: readonly string[]; gapMs: number }) {
  const context = audioContextInGesture();
  await context.resume();
  const sources: ScheduledSource[] = [];
  const player = createAudioPlayer(notingStarts(context, sources), { gapMs: config.gapMs });
  const buffers = await Promise.all(config.pieces.map((url) => decode(context, url)));
  const nowMs = () => context.currentTime * 1000;
  return { context, sources, player, buffers, nowMs };
}
