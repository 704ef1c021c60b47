/**
 * The on-device voice on its own, before any conversation: download it (with progress, once;
 * later visits read it from the cache) and hear a sample, synthesised piece by piece and played
 * as each piece exists. This is the one place that plugs the worker client and the player together
 * for it.
 */
import { chunkAll } from '../../common/speaking/chunker';
import { TALK } from '../../common/talk';
import type { LoadProgress, LoadResult, PageConfig, TtsApi } from '../../common/voice/api';
import { DEFAULT_SPEED } from '../../common/voice/config';
import { createAudioPlayer } from '../platform/audio/player';
import { sayWord } from '../platform/words';

export interface SampleResult {
  pieces: number;
  samples: number;
  sampleRateHz: number;
  /** From asking to the first piece's PCM, in milliseconds. */
  firstPieceMs: number;
}

export class VoiceSample {
  private loaded: LoadResult | null = null;

  constructor(
    private readonly tts: TtsApi,
    private readonly config: PageConfig,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get result(): LoadResult | null {
    return this.loaded;
  }

  async download(onProgress: (progress: LoadProgress) => void): Promise<LoadResult> {
    this.loaded = await this.tts.load(
      { version: this.config.model.version, base: this.config.model.base, voices: ['F1'], preferWebGpu: true },
      onProgress,
    );
    return this.loaded;
  }

  /** Speaks the sample; `context` must have been created or resumed in the click that asked. */
  async speak(context: AudioContext, utteranceId: number): Promise<SampleResult> {
    const player = createAudioPlayer(context, { gapMs: TALK.gapMs });
    const startedAt = this.now();
    let firstPieceMs = 0;
    let samples = 0;
    let sampleRateHz = 0;
    const pieces = chunkAll(sayWord('page-talk.voice-sample'));
    for (const [index, text] of pieces.entries()) {
      const spoken = await this.tts.speak({
        utteranceId,
        piece: index,
        text,
        lang: 'en',
        voice: 'F1',
        steps: index === 0 ? TALK.opening : TALK.steps,
        speed: DEFAULT_SPEED,
      });
      if (!spoken) break;
      if (index === 0) firstPieceMs = this.now() - startedAt;
      samples += spoken.samples.length;
      sampleRateHz = spoken.sampleRateHz;
      player.play({ utteranceId, piece: index }, new Float32Array(spoken.samples), spoken.sampleRateHz);
    }
    // Every piece is queued by now, so the player drains when the last one has played out.
    if (!player.drained) {
      await new Promise<void>((resolve) => {
        player.on('ended', () => {
          if (player.drained) resolve();
        });
      });
    }
    player.dispose();
    return { pieces: pieces.length, samples, sampleRateHz, firstPieceMs };
  }
}
