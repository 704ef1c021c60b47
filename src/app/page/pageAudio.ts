/**
 * The page's audio: the player, the speakers (on-device and endpoint), the hearing that judges
 * the microphone against the assistant's leak, the microphone itself, and the gesture that unlocks
 * sound. Everything it reports goes through one typed emitter (`on`).
 *
 * Sound locked or unlocked is not a machine here: it is a one-way latch the browser's AudioContext
 * sets (suspended until a gesture, then running), so `unlock` waits for it once. The microphone is
 * closed, opening or open, and refused until the person asks for it again.
 */
import type { PublicBot } from '../../../common/bot';
import { createEmitter } from '../../core/emitter';
import type { Emitter } from '../../core/emitter';
import type { Settings } from '../../core/settings';
import { paceOf } from '../../../common/speaking/pace';
import type { Pace } from '../../../common/speaking/pace';
import type { PageConfig } from '../../../common/voice/api';
import { audioContextInGesture, existingAudioContext } from '../../platform/audio/audioContext';
import { audioClock } from '../../platform/audio/audioClock';
import type { Clock } from '../../core/clock';
import type { MicrophoneLevel, MicrophoneOptions } from '../../platform/audio/microphone';
import { createAudioPlayer } from '../../platform/audio/player';
import { startVoiceActivity } from '../../platform/audio/voiceActivityModel';
import type { VoiceActivity, VoiceActivityFrame } from '../../platform/audio/voiceActivityModel';
import type { AudioPlayer } from '../../platform/audio/player';
import { createDeviceSpeaker } from '../../platform/speakers/deviceSpeaker';
import type { DeviceSpeaker } from '../../platform/speakers/deviceSpeaker';
import { createEndpointSpeaker } from '../../platform/speakers/endpointSpeaker';
import { routeByVoice } from '../../platform/speakers/routeByVoice';
import type { Speaker } from '../../platform/speakers/speaker';
import { loadVoiceCost, saveVoiceCost } from '../../platform/voiceCostStore';
import type { HearingPort, SpeakerFailure } from '../createConversation';
import type { DeviceEngine } from '../engine';
import { Hearing, listenWithMicrophone } from '../hearing';
import type { MicRefused } from '../hearing';
import type { PageSound } from '../utteranceRanges';

/** A piece of an utterance, as the player names it. */
type PieceKey = { utteranceId: number; piece: number };

/** What the page's audio reports. */
type PageAudioEvents = {
  started: PieceKey;
  ended: PieceKey;
  /** The person was heard clearly over the assistant's leak, in the frame that ended at `atMs` (audio clock, ms), clearing `bar`. */
  bargeIn: { atMs: number; bar: number };
  /** One frame of the microphone's level, as the gate heard it. */
  level: { atMs: number; level: number };
  /** One frame of the voice activity model on the microphone. */
  voice: VoiceActivityFrame;
  speakerFailed: SpeakerFailure;
  /** The on-device voice's pace changed. */
  paced: Pace;
  /** Assistant audio started or stopped sounding. */
  audible: boolean;
  /** The voice was ducked (someone was heard over it), or came back to full level or stopped. */
  ducked: boolean;
  /** The microphone was refused, or a capture ended by itself. */
  microphoneLost: MicRefused;
};

export interface PageAudioPorts {
  bot: Pick<PublicBot, 'voice'>;
  model: PageConfig['model'];
  engine: Pick<DeviceEngine, 'tts'>;
  settings: () => Settings;
  /** The on-device voice's name now. */
  deviceVoice: () => string;
  /** A live grant, for the endpoint speaker. */
  grant: () => Promise<string>;
  /** Whether the browser has a recogniser: without one the microphone is never opened. */
  canListen: boolean;
  /** Microphone options over the product's defaults. */
  microphone: Partial<MicrophoneOptions>;
}

export interface PageAudio {
  /** The page's sound as every conversation shares it. */
  readonly sound: PageSound;
  readonly hearing: HearingPort;
  /** The clock the hearing's frames carry: the AudioContext's. */
  readonly clock: Clock;
  on: Emitter<PageAudioEvents>['on'];
  /** In a gesture: makes or resumes the AudioContext, and calls `then` once it runs. */
  unlock: (then: (context: AudioContext) => void) => void;
  /** Opens the microphone on the page's AudioContext (if a gesture made one), unless it is open, opening or refused. */
  openMicrophone: (context?: AudioContext) => Promise<void>;
  /** Whether the microphone was refused or lost (a tap does not ask again; only unmuting does). */
  microphoneRefused: () => boolean;
  /** The person asked for the microphone: it may be asked for again. */
  allowMicrophone: () => void;
  closeMicrophone: () => void;
  /** Silences what plays now. */
  stop: () => void;
  /** The assistant's output level now, 0..1. */
  level: () => number;
  /** The microphone's level now, 0..1. */
  microphoneLevel: () => number;
  audible: () => boolean;
  dispose: () => void;
}

export function createPageAudio(ports: PageAudioPorts): PageAudio {
  const { bot, settings } = ports;
  const events = createEmitter<PageAudioEvents>();
  let disposed = false;
  let player: AudioPlayer | null = null;
  let speaker: Speaker | null = null;
  let device: DeviceSpeaker | null = null;
  let hearing: Hearing | null = null;
  let microphone: MicrophoneLevel | null = null;
  /** Silero on the open microphone, while it is open. */
  let voiceActivity: VoiceActivity | null = null;
  let microphoneOpening = false;
  /**
   * The microphone was refused or lost. A tap does not ask for it again (each ask would say the
   * refusal again, at every question typed); only the person unmuting does.
   */
  let refused = false;
  let micLevel = 0;

  /** The device voice's pace now: idle, at this device's kept cost, until the voice is made. */
  const devicePace = (): Pace =>
    device?.pace() ?? paceOf({ atMs: Date.now(), playsUntilMs: 0, making: [], gapMs: bot.voice.gapMs, speed: settings().speed, cost: loadVoiceCost(ports.model.version) });

  /** The player exists once there is an AudioContext; its events wait on the emitter until then. */
  function ensurePlayer(context: AudioContext): AudioPlayer {
    if (player !== null) return player;
    const made = createAudioPlayer(context, { gapMs: bot.voice.gapMs });
    made.on('started', (key) => {
      events.emit('started', key);
    });
    made.on('ended', (key) => {
      events.emit('ended', key);
    });
    made.on('audible', (audible) => {
      if (!disposed) events.emit('audible', audible);
    });
    player = made;
    hearing = new Hearing(made, (frame) => {
      events.emit('bargeIn', { atMs: frame.atMs, bar: frame.bar });
    });
    hearing.onHeard((frame) => {
      micLevel = frame.level;
      events.emit('level', frame);
    });
    speaker = speakersFor(made);
    speaker.onFailed((failure) => {
      events.emit('speakerFailed', failure);
    });
    return made;
  }

  /** The on-device speaker and the endpoint's, routed by the bot's voice. */
  function speakersFor(made: AudioPlayer): Speaker {
    const { version } = ports.model;
    const onDevice = createDeviceSpeaker({ tts: ports.engine.tts, player: made, voice: () => ({ name: ports.deviceVoice(), lang: settings().language, speed: settings().speed }), cost: loadVoiceCost(version) });
    device = onDevice;
    // The device's cost is kept per device as each piece measures it; the pace goes to the conversation.
    let keptCost = onDevice.pace().cost;
    onDevice.onPace((pace) => {
      if (pace.cost !== keptCost) {
        keptCost = pace.cost;
        saveVoiceCost(version, pace.cost);
      }
      events.emit('paced', pace);
    });
    const endpoint = createEndpointSpeaker({ player: made, grant: ports.grant, voice: () => ({ name: bot.voice.by === 'endpoint' && settings().voice !== '' ? settings().voice : undefined, speed: settings().speed }) });
    return routeByVoice({ device: onDevice, endpoint });
  }

  async function openMicrophone(context: AudioContext | undefined = existingAudioContext()): Promise<void> {
    if (context === undefined || microphone !== null || microphoneOpening || hearing === null || !ports.canListen) return;
    microphoneOpening = true;
    try {
      const opened = await listenWithMicrophone(
        hearing,
        context,
        (event) => {
          // A capture that ended by itself is let go, so unmuting can open a new one.
          letMicrophoneGo();
          refused = true;
          events.emit('microphoneLost', event);
        },
        ports.microphone,
        undefined,
        player?.output,
      );
      // The person may have left while the browser asked: a capture nobody listens to is closed,
      // so the browser's recording light goes off.
      if (disposed) opened?.stop();
      else if (opened !== null) {
        microphone = opened;
        voiceActivity = startVoiceActivity(context, opened);
        voiceActivity.onFrame((frame) => {
          events.emit('voice', frame);
        });
      }
    } finally {
      microphoneOpening = false;
    }
  }

  /** Silences what plays now; a stop ends a duck. */
  function stopVoice(): void {
    player?.stop();
    events.emit('ducked', false);
  }

  function letMicrophoneGo(): void {
    voiceActivity?.stop();
    voiceActivity = null;
    microphone?.stop();
    microphone = null;
  }

  /** The listener waiting for a suspended AudioContext to run, if one is. */
  let waitingForAudio: { context: AudioContext; listener: () => void } | null = null;
  function stopWaitingForAudio(): void {
    waitingForAudio?.context.removeEventListener('statechange', waitingForAudio.listener);
    waitingForAudio = null;
  }

  const sound: PageSound = {
    speak: (request) => {
      // Before any gesture the context may be suspended: the piece waits in it, unheard (and the
      // machine keeps listening), until a tap lets it play.
      ensurePlayer(audioContextInGesture());
      speaker?.speak(request);
    },
    cancel: (utteranceId) => {
      speaker?.cancel(utteranceId);
    },
    onFailed: (listener) => events.on('speakerFailed', listener),
    onPaced: (listener) => {
      const stop = events.on('paced', listener);
      listener(devicePace());
      return stop;
    },
    stop: stopVoice,
    duck: (ducked) => {
      player?.duck(ducked);
      events.emit('ducked', player?.ducked ?? false);
    },
    on: (event, listener) => events.on(event, listener),
  };

  return {
    sound,
    clock: audioClock,
    hearing: {
      onBargeIn: (listener) => events.on('bargeIn', listener),
      onVoice: (listener) => events.on('voice', listener),
      onLevel: (listener) => events.on('level', listener),
      listenAgain: () => hearing?.listenAgain(),
    },
    on: (event, listener) => events.on(event, listener),
    unlock(then) {
      const context = audioContextInGesture();
      ensurePlayer(context);
      const ready = () => {
        if (context.state !== 'running' || disposed) return;
        stopWaitingForAudio();
        then(context);
      };
      if (context.state === 'running') ready();
      else if (waitingForAudio === null) {
        // One listener while the context stays suspended, however many gestures come meanwhile.
        waitingForAudio = { context, listener: ready };
        context.addEventListener('statechange', ready);
      }
    },
    openMicrophone,
    microphoneRefused: () => refused,
    allowMicrophone: () => {
      refused = false;
    },
    closeMicrophone: letMicrophoneGo,
    stop: stopVoice,
    level: () => player?.level() ?? 0,
    microphoneLevel: () => micLevel,
    audible: () => player?.audible ?? false,
    dispose() {
      disposed = true;
      stopWaitingForAudio();
      letMicrophoneGo();
      speaker?.dispose();
      player?.dispose();
      events.clear();
    },
  };
}
