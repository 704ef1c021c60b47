/**
 * The speakers harness: the real player on the page's one AudioContext, the real device speaker over
 * the real TTS worker (the tiny Supertonic graphs the e2e server serves at /models), the real
 * endpoint speaker posting to this server's /api/speak with a grant from /api/start, both behind
 * `routeByVoice`, and the real conversation machine deciding what is spoken and what is re-spoken —
 * wired the way the app wires them. The test plays the answer stream (`ask`) and the person (`interrupt`).
 *
 * Everything the player is asked to do, everything it reports, and the peak of its output level while
 * each piece sounds, is written to one log in the order it happened, for the test to read; so is
 * every buffer the player schedules, with its start and length on the audio clock.
 *
 * With `?rtf=0.85` in its address the device voice is the slow worker (slowTts.worker.ts): the
 * product's worker on a device making speech at that real-time factor. With `?bot=<slug>` the grant
 * is for that bot (default `demo`): the paid voice is sold only to a bot whose voice is the endpoint.
 */
import { createActor } from 'xstate';
import type { Actor } from 'xstate';
import type { conversationMachine } from '../../../src/core/conversation/conversationMachine';
import type { Voice } from '../../../common/conversation/events';
import { DEFAULT_SPEED } from '../../../common/voice/config';
import { fetchPageConfig } from '../../../src/platform/apiClient';
import { audioContextInGesture } from '../../../src/platform/audio/audioContext';
import { createAudioPlayer } from '../../../src/platform/audio/player';
import type { AudioPlayer, PieceKey } from '../../../src/platform/audio/player';
import { createDeviceSpeaker } from '../../../src/platform/speakers/deviceSpeaker';
import type { DeviceSpeaker } from '../../../src/platform/speakers/deviceSpeaker';
import { createEndpointSpeaker } from '../../../src/platform/speakers/endpointSpeaker';
import { routeByVoice } from '../../../src/platform/speakers/routeByVoice';
import type { Speaker } from '../../../src/platform/speakers/speaker';
import { TtsClient } from '../../../src/platform/ttsClient';
import { sayWord } from '../../../src/platform/words';
import { speakingMachine } from '../../helpers/speakingMachine';

/** One thing that happened, in order. */
export type SpeakersEntry =
  | { kind: 'speak'; utteranceId: number; piece: number; voice: Voice }
  | { kind: 'failed'; utteranceId: number; piece: number; voice: Voice; reason: string }
  | { kind: 'open'; utteranceId: number; piece: number; rateHz: number }
  | { kind: 'write'; utteranceId: number; piece: number; samples: number; peak: number }
  | { kind: 'end'; utteranceId: number; piece: number }
  | { kind: 'started'; utteranceId: number; piece: number }
  /** `peakLevel`: the highest `player.level()` read while the piece was sounding. */
  | { kind: 'ended'; utteranceId: number; piece: number; peakLevel: number }
  | { kind: 'stop' }
  | { kind: 'interrupted'; utteranceId: number }
  /** A new conversation began (its utterance ids start again from 1). */
  | { kind: 'conversation'; voice: Voice }
  /** A buffer of the player's was scheduled: when it starts and how long it lasts, in audio-clock seconds. */
  | { kind: 'scheduled'; atS: number; durationS: number };

/** What the page exposes on `window.harness`. */
export interface SpeakersHarness {
  /** Loads the device voice and gets a grant for the demo bot. */
  prepare(): Promise<void>;
  /** Starts a conversation whose bot file says `voice.by: voice` (after the Begin click made the audio). */
  converse(voice: Voice): void;
  /** The person asks, and the whole answer streams in; returns the utterance's id. */
  ask(question: string, answer: string): number;
  /** The person talks over the assistant. */
  interrupt(): void;
  /** Whether the turn is back with the person (every piece heard or settled). */
  turnIsBack(): boolean;
  /** Whether the player holds nothing sounding, queued or open. */
  drained(): boolean;
  /** The player's output level now, 0..1. */
  level(): number;
  log(): SpeakersEntry[];
}

const log: SpeakersEntry[] = [];
const slowRtf = new URLSearchParams(location.search).get('rtf');
const grantBot = new URLSearchParams(location.search).get('bot') ?? 'demo';
const tts =
  slowRtf === null
    ? new TtsClient()
    : new TtsClient(() => new Worker(new URL('./slowTts.worker.ts', import.meta.url), { type: 'module', name: `confab-voice-slow rtf=${slowRtf}` }));
let grant: Promise<string> | undefined;
let player: AudioPlayer | undefined;
let device: DeviceSpeaker | undefined;
let speaker: Speaker | undefined;
let conversation: Actor<typeof conversationMachine> | undefined;
/** Stops the current conversation hearing the player and the speakers. */
let hangUp: (() => void)[] = [];

async function startConversationGrant(): Promise<string> {
  const response = await fetch('/api/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: grantBot }) });
  if (!response.ok) throw new Error(`POST /api/start answered ${response.status}`);
  return ((await response.json()) as { grant: string }).grant;
}

/** The player, with every call written to the log. */
function logged(real: AudioPlayer): AudioPlayer {
  const at = (key: PieceKey) => ({ utteranceId: key.utteranceId, piece: key.piece });
  return {
    duck(ducked) {
      real.duck(ducked);
    },
    get ducked() {
      return real.ducked;
    },
    open(key, sampleRateHz) {
      log.push({ kind: 'open', ...at(key), rateHz: sampleRateHz });
      const writer = real.open(key, sampleRateHz);
      return {
        write(samples) {
          log.push({ kind: 'write', ...at(key), samples: samples.length, peak: samples.reduce((peak, s) => Math.max(peak, Math.abs(s)), 0) });
          writer.write(samples);
        },
        end() {
          log.push({ kind: 'end', ...at(key) });
          writer.end();
        },
        get dropped() {
          return writer.dropped;
        },
      };
    },
    play(key, samples, sampleRateHz) {
      const writer = this.open(key, sampleRateHz);
      writer.write(samples);
      writer.end();
    },
    stop() {
      log.push({ kind: 'stop' });
      real.stop();
    },
    get audible() {
      return real.audible;
    },
    get audibleFromMs() {
      return real.audibleFromMs;
    },
    get drained() {
      return real.drained;
    },
    get gapMs() {
      return real.gapMs;
    },
    set gapMs(value: number) {
      real.gapMs = value;
    },
    level: () => real.level(),
    output: real.output,
    on: (event, listener) => real.on(event, listener),
    dispose() {
      real.dispose();
    },
  };
}

/** Reads the output level on every frame, keeping the peak of the piece now sounding. */
function watchLevels(real: AudioPlayer): void {
  let sounding: { key: PieceKey; peak: number } | undefined;
  real.on('started', (key) => {
    sounding = { key, peak: real.level() };
    log.push({ kind: 'started', utteranceId: key.utteranceId, piece: key.piece });
  });
  real.on('ended', (key) => {
    const peak = sounding?.key.utteranceId === key.utteranceId && sounding.key.piece === key.piece ? Math.max(sounding.peak, real.level()) : 0;
    sounding = undefined;
    log.push({ kind: 'ended', utteranceId: key.utteranceId, piece: key.piece, peakLevel: peak });
  });
  const read = () => {
    if (sounding !== undefined) sounding.peak = Math.max(sounding.peak, real.level());
    requestAnimationFrame(read);
  };
  requestAnimationFrame(read);
}

/** Logs every buffer the context is asked to play, when it starts and for how long. */
function watchSchedule(context: BaseAudioContext): void {
  const create = context.createBufferSource.bind(context);
  context.createBufferSource = () => {
    const source = create();
    const start = source.start.bind(source);
    source.start = (when?: number, offset?: number, duration?: number) => {
      log.push({ kind: 'scheduled', atS: when ?? 0, durationS: source.buffer?.duration ?? 0 });
      start(when, offset, duration);
    };
    return source;
  };
}

function begin(): void {
  if (player !== undefined) return;
  const context = audioContextInGesture();
  watchSchedule(context);
  const real = createAudioPlayer(context, { gapMs: 120 });
  watchLevels(real);
  player = logged(real);
  device = createDeviceSpeaker({ tts, player, voice: () => ({ name: 'F1', lang: 'en', speed: DEFAULT_SPEED }) });
  const endpoint = createEndpointSpeaker({
    player,
    grant: () => grant ?? Promise.reject(new Error('The harness was not prepared.')),
    voice: () => ({ name: undefined, speed: undefined }),
  });
  speaker = routeByVoice({ device, endpoint });
}

function wired(): { player: AudioPlayer; device: DeviceSpeaker; speaker: Speaker } {
  if (player === undefined || device === undefined || speaker === undefined) throw new Error('Click Begin first: the audio starts in a gesture.');
  return { player, device, speaker };
}

function converse(voice: Voice): void {
  const { player: out, device: onDevice, speaker: voices } = wired();
  conversation?.stop();
  for (const stop of hangUp) stop();
  log.push({ kind: 'conversation', voice });
  const machine = speakingMachine({
    speak: (request) => {
      log.push({ kind: 'speak', utteranceId: request.utteranceId, piece: request.piece, voice: request.voice });
      voices.speak(request);
    },
    stopAudio: () => {
      out.stop();
    },
    cancel: (utteranceId) => {
      voices.cancel(utteranceId);
    },
  });
  const actor = createActor(machine, { input: { recogniser: false, say: sayWord, voice } });
  actor.send({ type: 'voice.paced', pace: onDevice.pace() });
  actor.start();
  hangUp = [
    onDevice.onPace((pace) => {
      actor.send({ type: 'voice.paced', pace });
    }),
    out.on('started', (key) => {
      actor.send({ type: 'audio.started', ...key });
    }),
    out.on('ended', (key) => {
      actor.send({ type: 'audio.ended', ...key });
    }),
    voices.onFailed(({ utteranceId, piece, voice: failed, reason }) => {
      log.push({ kind: 'failed', utteranceId, piece, voice: failed, reason });
      actor.send({ type: 'speaker.failed', utteranceId, piece, voice: failed, reason });
    }),
  ];
  conversation = actor;
}

function talking(): Actor<typeof conversationMachine> {
  if (conversation === undefined) throw new Error('Start a conversation first: harness.converse(voice).');
  return conversation;
}

const harness: SpeakersHarness = {
  async prepare() {
    const config = await fetchPageConfig();
    await tts.load({ version: config.model.version, base: config.model.base, voices: ['F1'], preferWebGpu: false }, () => undefined);
    grant = startConversationGrant();
    await grant;
  },
  converse,
  ask(question, answer) {
    const actor = talking();
    actor.send({ type: 'user.said', text: question, via: 'keyboard', turnId: `turn-${question}` });
    const { utteranceId } = actor.getSnapshot().context;
    actor.send({ type: 'answer.delta', utteranceId, text: answer, atMs: Date.now() });
    actor.send({ type: 'answer.done', utteranceId, atMs: Date.now() });
    return utteranceId;
  },
  interrupt() {
    const actor = talking();
    log.push({ kind: 'interrupted', utteranceId: actor.getSnapshot().context.utteranceId });
    actor.send({ type: 'user.interrupted' });
  },
  turnIsBack: () => talking().getSnapshot().matches({ turn: 'listening' }),
  drained: () => wired().player.drained,
  level: () => wired().player.level(),
  log: () => [...log],
};

document.getElementById('begin')?.addEventListener('click', begin);
Object.assign(window, { harness });
