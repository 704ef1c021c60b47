/**
 * A small room for a harness page: what the microphone hears of the page's own voice, made on the
 * page's AudioContext from the player's output, so it follows the voice as a room's leak does — a
 * duck takes it down 18 dB, a stop ends it (its reverb rings out), a piece said again is heard
 * again. The voice goes through a small speaker (a high-pass) and a room (a ConvolverNode with a
 * seeded, synthetic reverb tail), close to the barge-in recipe's sox `highpass 200 reverb 30 50 40`,
 * and is mixed with the fake capture (Chromium's `--use-file-for-fake-audio-capture`: the marker,
 * the noise floor, the person or the noise) into one stream, which the page's microphone opens
 * through `openMicrophoneLevel`'s `devices`.
 *
 * The leak is scaled so its loudest sample at the microphone is a given level: the answer is
 * rendered once through the same room offline and the gain is that level over the render's peak.
 */
import type { MediaDevicesLike } from '../../../src/platform/audio/microphone';
import { seededRandom } from '../../helpers/random';

/** The speaker and the room. */
export interface RoomOptions {
  /** The small speaker's high-pass corner, in Hz (a two-pole Butterworth, as sox's `highpass`). Default 200. */
  highPassHz: number;
  /** From the direct sound to the first reflection, in ms. Default 12 (sox's reverb at room-scale 40 %). */
  firstReflectionMs: number;
  /** From the direct sound to the tail's loudest point, in ms (the reflections build up to it). Default 40. */
  tailPeakMs: number;
  /** From the direct sound to the end of the tail, 60 dB under its peak, in ms. Default 300. */
  tailMs: number;
  /** The whole tail's energy against the direct sound's, in dB. Default -14 (sox's `reverb 30 50 40` on an impulse: -14.3). */
  tailToDirectDb: number;
  /** The tail's high-frequency damping: a one-pole low-pass corner, in Hz. Default 5000. */
  dampingHz: number;
  /** Seeds the tail's noise, so every run hears the same room. */
  seed: number;
}

/** The defaults, each explained on its field in `RoomOptions`. */
export const ROOM: Readonly<RoomOptions> = Object.freeze({
  highPassHz: 200,
  firstReflectionMs: 12,
  tailPeakMs: 40,
  tailMs: 300,
  tailToDirectDb: -14,
  dampingHz: 5000,
  seed: 0x0d0_0a11,
});

/** Merges partial options over `ROOM`; throws a RangeError naming the option a person must fix. */
export function resolveRoom(partial: Partial<RoomOptions> = {}): RoomOptions {
  const options = { ...ROOM, ...partial };
  const { highPassHz, firstReflectionMs, tailPeakMs, tailMs, dampingHz } = options;
  if (!(highPassHz > 0)) throw new RangeError(`room highPassHz is ${String(highPassHz)}; give a corner over 0 Hz.`);
  if (!(firstReflectionMs > 0 && firstReflectionMs <= tailPeakMs && tailPeakMs < tailMs)) {
    throw new RangeError(`room times are ${String(firstReflectionMs)}, ${String(tailPeakMs)}, ${String(tailMs)} ms; give 0 < firstReflectionMs ≤ tailPeakMs < tailMs.`);
  }
  if (!(dampingHz > 0)) throw new RangeError(`room dampingHz is ${String(dampingHz)}; give a corner over 0 Hz.`);
  if (!Number.isFinite(options.tailToDirectDb)) throw new RangeError('room tailToDirectDb must be a number of dB.');
  return options;
}

/**
 * The room's impulse response at `rateHz`: the direct sound (1, at sample 0: the leak is not
 * delayed), then seeded noise, low-passed at `dampingHz`, rising from the first reflection to
 * `tailPeakMs` and falling 60 dB from there to `tailMs`, its energy `tailToDirectDb` under the
 * direct sound's.
 */
export function roomImpulse(rateHz: number, partial: Partial<RoomOptions> = {}): Float32Array<ArrayBuffer> {
  const options = resolveRoom(partial);
  const at = (ms: number) => Math.round((ms / 1000) * rateHz);
  const first = at(options.firstReflectionMs);
  const peak = at(options.tailPeakMs);
  const end = at(options.tailMs);
  const random = seededRandom(options.seed);
  const damping = 1 - Math.exp((-2 * Math.PI * options.dampingHz) / rateHz);
  const decayPerSample = 10 ** (-60 / 20 / Math.max(1, end - peak));
  const impulse = new Float32Array(end);
  let noise = 0;
  let energy = 0;
  for (let i = first; i < end; i++) {
    noise += damping * (random() * 2 - 1 - noise);
    const envelope = i < peak ? (i - first) / Math.max(1, peak - first) : decayPerSample ** (i - peak);
    const sample = noise * envelope;
    impulse[i] = sample;
    energy += sample * sample;
  }
  const scale = energy === 0 ? 0 : Math.sqrt(10 ** (options.tailToDirectDb / 10) / energy);
  for (let i = first; i < end; i++) impulse[i] = (impulse[i] ?? 0) * scale;
  impulse[0] = 1;
  return impulse;
}

/** The speaker and the room as nodes on `context`: into `input`, out of `output`. */
function roomNodes(context: BaseAudioContext, impulse: Float32Array<ArrayBuffer>, options: RoomOptions): { input: AudioNode; output: AudioNode } {
  // Web Audio's Q for a high-pass is in dB: -3.01 dB is 1/√2, a Butterworth's.
  const speaker = new BiquadFilterNode(context, { type: 'highpass', frequency: options.highPassHz, Q: 20 * Math.log10(Math.SQRT1_2) });
  const buffer = new AudioBuffer({ length: impulse.length, numberOfChannels: 1, sampleRate: context.sampleRate });
  buffer.copyToChannel(impulse, 0);
  const room = new ConvolverNode(context, { buffer, disableNormalization: true });
  speaker.connect(room);
  return { input: speaker, output: room };
}

/**
 * The loudest sample of the answer heard through the room: `pieces` as the player plays them, one
 * after another with `gapMs` between, rendered offline at their rate with the room's tail after.
 */
export async function roomPeak(pieces: readonly AudioBuffer[], gapMs: number, partial: Partial<RoomOptions> = {}): Promise<number> {
  const options = resolveRoom(partial);
  const rateHz = pieces[0]?.sampleRate;
  if (rateHz === undefined) throw new RangeError('roomPeak needs at least one piece of the answer.');
  const gap = Math.round((gapMs / 1000) * rateHz);
  const length = pieces.reduce((n, piece) => n + piece.length + gap, 0) + Math.round((options.tailMs / 1000) * rateHz);
  const offline = new OfflineAudioContext({ numberOfChannels: 1, length, sampleRate: rateHz });
  const { input, output } = roomNodes(offline, roomImpulse(rateHz, options), options);
  output.connect(offline.destination);
  let at = 0;
  for (const piece of pieces) {
    const source = new AudioBufferSourceNode(offline, { buffer: piece });
    source.connect(input);
    source.start(at / rateHz);
    at += piece.length + gap;
  }
  const rendered = (await offline.startRendering()).getChannelData(0);
  let peak = 0;
  for (const sample of rendered) peak = Math.max(peak, Math.abs(sample));
  return peak;
}

/** A microphone in the room, for `openMicrophoneLevel`. */
export interface RoomMicrophone {
  /** Opens the fake capture and hands back it and the leak, mixed, as one stream. */
  readonly devices: MediaDevicesLike;
  /** Lets go of the room's nodes and the capture. Idempotent. */
  stop(): void;
}

/**
 * A microphone that hears the capture `devices` give (the fake one) and `voice` through the room at
 * `leakGain` (none when 0: headphones), mixed and clipped at full scale as a capture is, on
 * `context`. Each `getUserMedia` opens the capture with the constraints asked for.
 */
export function roomMicrophone(
  context: AudioContext,
  voice: AudioNode,
  leakGain: number,
  partial: Partial<RoomOptions> = {},
  devices: MediaDevicesLike = navigator.mediaDevices,
): RoomMicrophone {
  const options = resolveRoom(partial);
  const mix = new MediaStreamAudioDestinationNode(context, { channelCount: 1, channelCountMode: 'explicit' });
  // A curve of two points is the identity over [-1, 1] and holds its ends past them: a capture's clipping.
  const clip = new WaveShaperNode(context, { curve: new Float32Array([-1, 1]) });
  clip.connect(mix);
  const level = new GainNode(context, { gain: leakGain });
  level.connect(clip);
  const room = roomNodes(context, roomImpulse(context.sampleRate, options), options);
  room.output.connect(level);
  if (leakGain > 0) voice.connect(room.input);
  const captures: MediaStream[] = [];
  const sources: MediaStreamAudioSourceNode[] = [];
  let stopped = false;
  return {
    devices: {
      async getUserMedia(constraints) {
        const capture = await devices.getUserMedia(constraints);
        captures.push(capture);
        const source = context.createMediaStreamSource(capture);
        sources.push(source);
        source.connect(clip);
        return mix.stream;
      },
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        voice.disconnect(room.input);
      } catch {
        // Not connected (no leak), or the player was disposed first.
      }
      for (const source of sources) source.disconnect();
      for (const node of [room.input, room.output, level, clip, mix]) node.disconnect();
      for (const stream of [...captures, mix.stream]) for (const track of stream.getTracks()) track.stop();
    },
  };
}
