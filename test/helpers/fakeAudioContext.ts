/**
 * Just enough of a BaseAudioContext to test scheduling in Node: buffers, buffer sources, gains and
 * an analyser, on a clock the test moves. A source "plays" from its start time for its buffer's
 * duration; moving the clock past its end fires its `onended`. The analyser reads the peak of
 * whatever sources are sounding at the current time, connected through to the destination.
 */

export interface FakeSource {
  startS: number | null;
  stoppedAtS: number | null;
  durationS: number;
  samples: Float32Array;
  rateHz: number;
  onended: (() => void) | null;
  connectedTo: FakeGain | null;
}

export interface FakeGain {
  gain: { value: number };
  connected: boolean;
}

export class FakeAudioContext extends EventTarget {
  currentTime = 0;
  state: 'suspended' | 'running' | 'closed' = 'running';

  /** Moves to `state` and says so, as a real context does. */
  setState(state: 'suspended' | 'running'): void {
    this.state = state;
    this.dispatchEvent(new Event('statechange'));
  }

  readonly sources: FakeSource[] = [];
  readonly destination = {};
  private readonly gains: FakeGain[] = [];

  createBuffer(_channels: number, length: number, rateHz: number) {
    if (length < 1) throw new RangeError('createBuffer: length must be at least 1');
    const data = new Float32Array(length);
    return {
      duration: length / rateHz,
      sampleRate: rateHz,
      length,
      data,
      copyToChannel(samples: Float32Array) {
        data.set(samples);
      },
    };
  }

  createBufferSource() {
    const source: FakeSource & { buffer: { duration: number; data: Float32Array; sampleRate: number } | null } = {
      startS: null,
      stoppedAtS: null,
      durationS: 0,
      samples: new Float32Array(0),
      rateHz: 0,
      onended: null,
      connectedTo: null,
      buffer: null,
    };
    const node = Object.assign(source, {
      connect: (gain: FakeGain) => {
        source.connectedTo = gain;
      },
      disconnect: () => {
        source.connectedTo = null;
      },
      start: (atS: number) => {
        if (source.buffer === null) throw new Error('start without a buffer');
        source.startS = atS;
        source.durationS = source.buffer.duration;
        source.samples = source.buffer.data;
        source.rateHz = source.buffer.sampleRate;
        this.sources.push(source);
      },
      stop: () => {
        source.stoppedAtS = this.currentTime;
      },
    });
    return node;
  }

  createGain() {
    const gain: FakeGain & { connect: () => void; disconnect: () => void } = {
      gain: { value: 1 },
      connected: false,
      connect: () => {
        gain.connected = true;
      },
      disconnect: () => {
        gain.connected = false;
      },
    };
    this.gains.push(gain);
    return gain;
  }

  createAnalyser() {
    return {
      fftSize: 2048,
      connect: () => undefined,
      disconnect: () => undefined,
      getFloatTimeDomainData: (into: Float32Array) => {
        into.fill(0);
        const peak = this.soundingPeak();
        if (into.length > 0) into[0] = peak;
      },
    };
  }

  /** The largest |sample| any source plays at the current time, through a connected, open gain. */
  soundingPeak(): number {
    let peak = 0;
    for (const source of this.sources) {
      if (!this.sounding(source)) continue;
      const index = Math.floor((this.currentTime - (source.startS ?? 0)) * source.rateHz);
      peak = Math.max(peak, Math.abs(source.samples[index] ?? 0) * (source.connectedTo?.gain.value ?? 0));
    }
    return peak;
  }

  /** Whether `source` is playing at the current time. */
  sounding(source: FakeSource): boolean {
    const start = source.startS;
    if (start === null || source.stoppedAtS !== null || source.connectedTo?.connected !== true) return false;
    return this.currentTime >= start && this.currentTime < start + source.durationS;
  }

  /** Moves the clock to `timeS`, ending (in order of their ends) every source that finished by then. */
  advanceTo(timeS: number): void {
    const ending = this.sources
      .filter((s) => s.startS !== null && s.stoppedAtS === null && s.startS + s.durationS <= timeS && s.startS + s.durationS > this.currentTime - 1e-9)
      .sort((a, b) => (a.startS ?? 0) + a.durationS - ((b.startS ?? 0) + b.durationS));
    for (const source of ending) {
      this.currentTime = Math.max(this.currentTime, (source.startS ?? 0) + source.durationS);
      source.stoppedAtS = this.currentTime;
      source.onended?.();
    }
    this.currentTime = timeS;
  }
}
