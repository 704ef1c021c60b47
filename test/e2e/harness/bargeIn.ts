/**
 * The barge-in harness: the real player, the real microphone level and the real hearing, on the
 * page's one AudioContext, with barge-in wired to `player.stop()` as the machine's `stopAudio`
 * would be. The "assistant" is a known answer fetched from `/test-speech/`; the microphone is
 * Chromium's fake capture device playing a WAV made for the scenario (test/e2e/speech).
 *
 * The capture WAV starts when getUserMedia is called and opens with a marker tone; the page plays
 * the answer `leadMs` after the marker's start, so the leak in the WAV and the player's output run
 * on one timeline, and a moment in the WAV can be placed on the audio clock.
 */
import { Hearing, listenWithMicrophone } from '../../../src/app/hearing';
import type { JudgedFrame, MicRefused } from '../../../src/app/hearing';
import { MICROPHONE } from '../../../src/platform/audio/microphone';
import { harnessPlayer, markerHeard, sleep } from './harnessAudio';
import type { ScheduledSource } from './harnessAudio';

/** What one run plays and how it listens. */
export interface BargeInRun {
  /** The answer's pieces, in order, as URLs. */
  pieces: string[];
  /** The player's gap between pieces, in ms. */
  gapMs: number;
  /** From the marker's first sample to the answer's first sample, in ms (as the WAV was made). */
  leadMs: number;
  /** The marker's peak level; a frame over half of it is the marker. */
  markerLevel: number;
  /** Whether the capture asks for the browser's echo cancellation (AGC and noise suppression are off). */
  echoCancellation: boolean;
  /** How long to keep listening after the assistant falls silent, in ms. */
  afterMs: number;
}

/** Everything the page saw, times on the AudioContext's clock in ms. */
export interface BargeInReport {
  sampleRateHz: number;
  /** Milliseconds per level frame. */
  frameMs: number;
  /** What the browser granted for the capture. */
  settings: { echoCancellation: boolean | null; autoGainControl: boolean | null; noiseSuppression: boolean | null; sampleRate: number | null };
  /** The end of the first frame over the marker threshold: the marker began within the `frameMs` before it. */
  markerAtMs: number;
  /** Every frame the hearing judged, in order. */
  frames: JudgedFrame[];
  /** Every source the player started, in order. */
  sources: ScheduledSource[];
  /** When the player's audible changed, and to what. */
  audible: { atMs: number; audible: boolean }[];
  /** When `player.stop()` returned after a barge-in; null when none. */
  stoppedAtMs: number | null;
  /** The first time after the stop that the player's own output level read 0; null when none. */
  silentAtMs: number | null;
  /** The player's output level and audible 50 ms after the stop; null when none. */
  afterStop: { level: number; audible: boolean } | null;
  /** The gate's bar when the run ended. */
  bar: number;
  /** The machine events handed over for a microphone that could not be used. */
  refusals: MicRefused[];
}

/** What the page exposes on `window.harness`. */
interface BargeInHarness {
  run(config: BargeInRun): Promise<BargeInReport>;
}

/** How long after a stop the player's level is read for the record. */
const AFTER_STOP_MS = 50;

async function run(config: BargeInRun): Promise<BargeInReport> {
  const { context, sources, player, buffers, nowMs } = await harnessPlayer(config);

  const audible: BargeInReport['audible'] = [];
  let sounded = (): void => undefined;
  let fellSilent = (): void => undefined;
  const hasSounded = new Promise<void>((resolve) => (sounded = resolve));
  const isSilent = new Promise<void>((resolve) => (fellSilent = resolve));
  player.on('audible', (now) => {
    audible.push({ atMs: nowMs(), audible: now });
    if (now) sounded();
    else fellSilent();
  });

  let stoppedAtMs: number | null = null;
  let silentAtMs: number | null = null;
  let afterStop: BargeInReport['afterStop'] = null;
  const watchSilence = async () => {
    const until = nowMs() + AFTER_STOP_MS;
    while (nowMs() < until) {
      if (silentAtMs === null && player.level() === 0) silentAtMs = nowMs();
      await sleep(1);
    }
    afterStop = { level: player.level(), audible: player.audible };
  };
  let watching: Promise<void> = Promise.resolve();
  const hearing = new Hearing(player, () => {
    player.stop();
    stoppedAtMs = nowMs();
    watching = watchSilence();
  });

  const frames: JudgedFrame[] = [];
  hearing.onHeard((frame) => frames.push(frame));
  const marker = markerHeard(hearing, config.markerLevel);

  const refusals: MicRefused[] = [];
  const microphone = await listenWithMicrophone(
    hearing,
    context,
    (event) => refusals.push(event),
    { echoCancellation: config.echoCancellation, autoGainControl: false, noiseSuppression: false },
    undefined,
    player.output,
  );
  const settingsOf = (s: MediaTrackSettings | undefined): BargeInReport['settings'] => ({
    echoCancellation: typeof s?.echoCancellation === 'boolean' ? s.echoCancellation : null,
    autoGainControl: s?.autoGainControl ?? null,
    noiseSuppression: s?.noiseSuppression ?? null,
    sampleRate: s?.sampleRate ?? null,
  });
  const report = (markerAtMs: number): BargeInReport => ({
    sampleRateHz: context.sampleRate,
    frameMs: MICROPHONE.frameMs,
    settings: settingsOf(microphone?.settings),
    markerAtMs,
    frames,
    sources,
    audible,
    stoppedAtMs,
    silentAtMs,
    afterStop,
    bar: hearing.bar,
    refusals,
  });
  if (microphone === null) return report(Number.NaN);

  const markerAtMs = await marker;
  // The marker began within the frame that first heard it; the answer goes `leadMs` after that.
  await sleep(markerAtMs - MICROPHONE.frameMs + config.leadMs - nowMs());
  buffers.forEach((buffer, piece) => {
    player.play({ utteranceId: 1, piece }, buffer.getChannelData(0), buffer.sampleRate);
  });
  await hasSounded;
  await isSilent;
  await sleep(config.afterMs);
  await watching;
  microphone.stop();
  player.dispose();
  return report(markerAtMs);
}

const harness: BargeInHarness = { run };
Object.assign(window, { harness });
