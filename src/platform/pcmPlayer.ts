/**
 * Plays float PCM pieces one after another, scheduled on the audio clock (never by timers), with
 * a gap between pieces. The AudioContext must be created or resumed inside a user gesture.
 */

export class PcmPlayer {
  private nextStartS = 0;
  private readonly playing = new Set<AudioBufferSourceNode>();

  constructor(
    private readonly context: AudioContext,
    /** Silence between pieces, in milliseconds. */
    private readonly gapMs: number,
  ) {}

  /**
   * Queues one piece (mono samples in [-1, 1] at `sampleRateHz`); resolves when its last sample
   * has played. The context resamples to its own rate.
   */
  play(samples: Float32Array<ArrayBuffer>, sampleRateHz: number): Promise<void> {
    const buffer = this.context.createBuffer(1, Math.max(1, samples.length), sampleRateHz);
    buffer.copyToChannel(samples, 0);
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    const startS = Math.max(this.context.currentTime, this.nextStartS);
    this.nextStartS = startS + buffer.duration + this.gapMs / 1000;
    this.playing.add(source);
    const ended = new Promise<void>((resolve) => {
      source.onended = () => {
        this.playing.delete(source);
        resolve();
      };
    });
    source.start(startS);
    return ended;
  }

  /** Silences everything at once and drops what is queued. */
  stop(): void {
    for (const source of this.playing) source.stop();
    this.playing.clear();
    this.nextStartS = 0;
  }
}
