/**
 * Just enough of a BaseAudioContext to test scheduling in Node: buffers, buffer sources, gains and
 * an analyser, on a clock the test moves. A source "plays" from its start time for its buffer's
 * duration, or until the time it was stopped at; moving the clock past its end fires its `onended`.
 * A gain follows its scheduled values (set and linear ramps). The analyser reads the peak of
 * whatever sources are sounding at the current time, through their gain, connected to the
 * destination.
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

/** An AudioParam's automation, as far as the player uses it: set, linear ramps, cancel. */
class FakeParam {
  /** Where the value stands before any scheduled event. */
  value: number;
  private events: { kind: 'set' | 'ramp'; value: number; atS: number }[] = [];

  constructor(value: number) {
    this.value = value;
  }

  setValueAtTime(value: number, atS: number): void {
    this.schedule({ kind: 'set', value, atS });
  }

  linearRampToValueAtTime(value: number, atS: number): void {
    this.schedule({ kind: 'ramp', value, atS });
  }

  cancelScheduledValues(fromS: number): void {
    this.events = this.events.filter((event) => event.atS < fromS);
  }

  /** The value at `timeS`, as the automation has it. */
  valueAt(timeS: number): number {
    let before = { value: this.value, atS: Number.NEGATIVE_INFINITY };
    for (const event of this.events) {
      if (event.atS <= timeS) {
        before = event;
        continue;
      }
      if (event.kind === 'set' || !Number.isFinite(before.atS)) return before.value;
      return before.value + ((event.value - before.value) * (timeS - before.atS)) / (event.atS - before.atS);
    }
    return before.value;
  }

  private schedule(event: { kind: 'set' | 'ramp'; value: number; atS: number }): void {
    this.events.push(event);
    this.events.sort((a, b) => a.atS - b.atS);
  }
}

export interface FakeGain {
  gain: FakeParam;
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
      getChannelData: () => data,
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
      stop: (atS?: number) => {
        source.stoppedAtS = Math.max(this.currentTime, atS ?? 0);
      },
    });
    return node;
  }

  createGain() {
    const gain: FakeGain & { connect: () => void; disconnect: () => void } = {
      gain: new FakeParam(1),
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
      peak = Math.max(peak, Math.abs(source.samples[index] ?? 0) * (source.connectedTo?.gain.valueAt(this.currentTime) ?? 0));
    }
    return peak;
  }

  /** Whether `source` is playing at the current time. */
  sounding(source: FakeSource): boolean {
    const start = source.startS;
    if (start === null || source.connectedTo?.connected !== true) return false;
    if (source.stoppedAtS !== null && this.currentTime >= source.stoppedAtS) return false;
    return this.currentTime >= start && this.currentTime < start + source.durationS;
  }

  /** Moves the clock to `timeS`, ending (in order of their ends) every source that finished by then. */
  advanceTo(timeS: number): void {
    const endOf = (s: FakeSource) => Math.min((s.startS ?? 0) + s.durationS, s.stoppedAtS ?? Number.POSITIVE_INFINITY);
    const ending = this.sources
      .filter((s) => s.startS !== null && !this.ended.has(s) && endOf(s) <= timeS)
      .sort((a, b) => endOf(a) - endOf(b));
    for (const source of ending) {
      this.ended.add(source);
      this.currentTime = Math.max(this.currentTime, endOf(source));
      source.stoppedAtS ??= this.currentTime;
      source.onended?.();
    }
    this.currentTime = timeS;
  }

  /** Sources whose end has been reached (and `onended` called). */
  private readonly ended = new Set<FakeSource>();
}
