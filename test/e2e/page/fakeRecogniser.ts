/**
 * The browser's speech recogniser, replaced before the page loads by one the test speaks through:
 * `window.SpeechRecognition` (and the prefixed name Chromium uses) become a class with the Web
 * Speech API's face — continuous, interim results, lang, start/stop/abort, onresult/onerror/onend —
 * that hears nothing by itself and emits interim and final results when the test says so.
 *
 * It behaves as Chromium's does where the page could tell: `start` on a running session throws
 * InvalidStateError; `stop` hands over what was heard but not yet final as a final result, then
 * ends; `abort` ends without it; the end always comes after the call, never inside it; a continuous
 * session keeps its final results, and each event's `resultIndex` is the first result that changed.
 * Where the browser refuses the microphone, Chromium's recogniser is refused too: every session
 * fails with `not-allowed` as it starts (`refused`).
 *
 * As Chromium 139 on, where the test says (`onDevice`), it recognises on the device: the static
 * `available({ langs, processLocally })` answers what the test gave, `install(...)` downloads the
 * pack (`downloading`) until the test ends the download (then `available`, resolving true, or as
 * before, resolving false), and sessions have `processLocally`. With
 * `phrases`, sessions take `SpeechRecognitionPhrase`s, and — as Chrome's server recogniser does — a
 * session with phrases that is not processed locally fails with `phrases-not-supported` as it
 * starts. Without either, neither is there, so the page sees no more than before. Every question is
 * kept (`asked`), and what each session was asked for (`sessions`).
 */
import type { Page } from '@playwright/test';

/** What the browser says of recognising a language on this device. */
export type FakeOnDevice = 'available' | 'downloadable' | 'downloading' | 'unavailable';

/** How the fake browser recognises: where the microphone is refused, on the device, with phrases. */
export interface FakeSpeechOptions {
  refused: boolean;
  /** What `available` answers at first; null: the browser has no on-device recognition. Default null. */
  onDevice?: FakeOnDevice | null;
  /** Whether sessions take phrases to favour. Default false. */
  phrases?: boolean;
}

/** What one session was asked for as it started. */
export interface FakeSessionAsked {
  lang: string;
  /** Undefined where the browser has no on-device recognition. */
  processLocally: boolean | undefined;
  /** The phrases' text, in order; undefined where the browser takes none. */
  phrases: string[] | undefined;
}

/** The options `available` and `install` were called with. */
interface FakeOnDeviceAsked {
  langs: string[];
  processLocally?: boolean;
}

/** What the test sees and drives in the page: `window.fakeSpeech`. */
export interface FakeSpeechControl {
  /** Whether a session is listening now (started, not stopped, not ended). */
  readonly running: boolean;
  /** Sessions started so far on this page. */
  readonly started: number;
  /** The `lang` of the running session, or null. */
  readonly lang: string | null;
  /** Words not yet final; throws when nothing is listening. */
  interim(text: string): void;
  /** A committed transcript; throws when nothing is listening. */
  final(text: string): void;
  /** The session ends by itself, as Chromium's does after a silence. */
  end(): void;
  /** The calls to `available` and `install`, in order. */
  readonly asked: { available: FakeOnDeviceAsked[]; install: FakeOnDeviceAsked[] };
  /** What each session started so far was asked for. */
  readonly sessions: FakeSessionAsked[];
  /** Ends the oldest download under way: installed, or failed; throws when none is. */
  finishDownload(installed: boolean): void;
}

declare global {
  interface Window {
    fakeSpeech: FakeSpeechControl;
  }
}

/** Runs in the page before its own scripts; self-contained, as `addInitScript` serialises it. */
function installFake(options: FakeSpeechOptions): void {
  const { refused } = options;
  const onDeviceOffered = options.onDevice !== undefined && options.onDevice !== null;
  const phrasesTaken = options.phrases === true;
  let onDevice = options.onDevice ?? 'unavailable';
  const asked: FakeSpeechControl['asked'] = { available: [], install: [] };
  const sessions: FakeSessionAsked[] = [];
  /** Downloads under way, each ended when the test says. */
  const downloads: ((installed: boolean) => void)[] = [];
  interface Result {
    isFinal: boolean;
    0: { transcript: string; confidence: number };
    length: 1;
  }
  /** Sessions listening now: one, as the page runs one at a time (Chromium refuses two). */
  const listeningNow = new Set<FakeSpeechRecognition>();
  let started = 0;

  class FakeSpeechRecognition extends EventTarget {
    continuous = false;
    interimResults = false;
    lang = '';
    maxAlternatives = 1;
    onresult: ((event: { resultIndex: number; results: Result[] }) => void) | null = null;
    onerror: ((event: { error: string }) => void) | null = null;
    onend: (() => void) | null = null;
    onstart: (() => void) | null = null;
    #state: 'idle' | 'running' | 'ending' = 'idle';
    readonly #results: Result[] = [];

    static available(given: FakeOnDeviceAsked): Promise<FakeOnDevice> {
      asked.available.push(structuredClone(given));
      return Promise.resolve(onDevice);
    }

    static install(given: FakeOnDeviceAsked): Promise<boolean> {
      asked.install.push(structuredClone(given));
      onDevice = 'downloading';
      return new Promise((resolve) => {
        downloads.push((installed) => {
          onDevice = installed ? 'available' : 'downloadable';
          resolve(installed);
        });
      });
    }

    /** Set through the accessors put on the prototype where the test offers them, as the browser's attributes are. */
    local = false;
    biasedTowards: { phrase: string; boost: number }[] = [];

    start(): void {
      if (this.#state !== 'idle') throw new DOMException('recognition has already started.', 'InvalidStateError');
      started += 1;
      sessions.push({
        lang: this.lang,
        processLocally: onDeviceOffered ? this.local : undefined,
        phrases: phrasesTaken ? this.biasedTowards.map((p) => p.phrase) : undefined,
      });
      if (refused || (phrasesTaken && this.biasedTowards.length > 0 && !this.local)) {
        const error = refused ? 'not-allowed' : 'phrases-not-supported';
        this.#state = 'ending';
        setTimeout(() => {
          this.onerror?.({ error });
          this.#state = 'idle';
          this.onend?.();
        }, 0);
        return;
      }
      this.#state = 'running';
      listeningNow.add(this);
      setTimeout(() => this.onstart?.(), 0);
    }

    stop(): void {
      this.#finish(true);
    }

    abort(): void {
      this.#finish(false);
    }

    get running(): boolean {
      return this.#state === 'running';
    }

    hear(text: string, isFinal: boolean): void {
      if (this.#state !== 'running') throw new Error('The fake recogniser is not listening; nothing can be said to it now.');
      const last = this.#results.at(-1);
      const result: Result = { isFinal, 0: { transcript: text, confidence: 0.9 }, length: 1 };
      // An interim result is replaced by the next one; a final one is kept for the session's life.
      const index = last !== undefined && !last.isFinal ? this.#results.length - 1 : this.#results.length;
      this.#results[index] = result;
      this.onresult?.({ resultIndex: index, results: [...this.#results] });
    }

    endByItself(): void {
      this.#finish(false);
    }

    #finish(keepHeard: boolean): void {
      if (this.#state !== 'running') return;
      this.#state = 'ending';
      listeningNow.delete(this);
      setTimeout(() => {
        const last = this.#results.at(-1);
        if (keepHeard && last !== undefined && !last.isFinal) {
          this.#results[this.#results.length - 1] = { ...last, isFinal: true };
          this.onresult?.({ resultIndex: this.#results.length - 1, results: [...this.#results] });
        }
        this.#state = 'idle';
        this.#results.length = 0;
        this.onend?.();
      }, 0);
    }
  }

  const current = (): FakeSpeechRecognition | undefined => [...listeningNow].at(-1);
  const listening = (): FakeSpeechRecognition => {
    const session = current();
    if (session === undefined) throw new Error('The fake recogniser is not listening; nothing can be said to it now.');
    return session;
  };
  if (!onDeviceOffered) {
    Reflect.deleteProperty(FakeSpeechRecognition, 'available');
    Reflect.deleteProperty(FakeSpeechRecognition, 'install');
  } else {
    Object.defineProperty(FakeSpeechRecognition.prototype, 'processLocally', {
      get(this: FakeSpeechRecognition) {
        return this.local;
      },
      set(this: FakeSpeechRecognition, value: boolean) {
        this.local = value;
      },
    });
  }
  if (phrasesTaken) {
    Object.defineProperty(FakeSpeechRecognition.prototype, 'phrases', {
      get(this: FakeSpeechRecognition) {
        return this.biasedTowards;
      },
      set(this: FakeSpeechRecognition, value: { phrase: string; boost: number }[]) {
        this.biasedTowards = [...value];
      },
    });
    class FakeSpeechRecognitionPhrase {
      constructor(
        readonly phrase: string,
        readonly boost = 1,
      ) {}
    }
    Object.defineProperty(window, 'SpeechRecognitionPhrase', { value: FakeSpeechRecognitionPhrase, configurable: true, writable: true });
  } else {
    // Chromium 156 has its own; without the fake's recognition taking phrases it would go unused anyway.
    Reflect.deleteProperty(window, 'SpeechRecognitionPhrase');
  }
  for (const name of ['SpeechRecognition', 'webkitSpeechRecognition']) {
    Object.defineProperty(window, name, { value: FakeSpeechRecognition, configurable: true, writable: true });
  }
  const control: FakeSpeechControl = {
    get running() {
      return current()?.running ?? false;
    },
    get started() {
      return started;
    },
    get lang() {
      return current()?.lang ?? null;
    },
    interim: (text) => {
      listening().hear(text, false);
    },
    final: (text) => {
      listening().hear(text, true);
    },
    end: () => {
      listening().endByItself();
    },
    asked,
    sessions,
    finishDownload: (installed) => {
      const download = downloads.shift();
      if (download === undefined) throw new Error('No speech pack is downloading.');
      download(installed);
    },
  };
  Object.defineProperty(window, 'fakeSpeech', { value: control, configurable: true });
}

/** A browser with no recogniser at all, as Firefox is. */
function removeRecogniser(): void {
  for (const name of ['SpeechRecognition', 'webkitSpeechRecognition']) {
    Reflect.deleteProperty(window, name);
    Reflect.deleteProperty(Window.prototype, name);
  }
}

/** The test's side of the fake: waits for the page to listen, then speaks. */
export class FakeSpeech {
  constructor(private readonly page: Page) {}

  /** Installs the fake recogniser in every page this `page` loads from now on; `refused` as where the microphone is. */
  static async install(page: Page, options: FakeSpeechOptions): Promise<FakeSpeech> {
    await page.addInitScript(installFake, options);
    return new FakeSpeech(page);
  }

  /** Makes every page `page` loads from now on a browser without a recogniser. */
  static async remove(page: Page): Promise<void> {
    await page.addInitScript(removeRecogniser);
  }

  /** Whether the page is listening now. */
  running(): Promise<boolean> {
    return this.page.evaluate(() => window.fakeSpeech.running);
  }

  /** How many sessions the page has started. */
  started(): Promise<number> {
    return this.page.evaluate(() => window.fakeSpeech.started);
  }

  /** Waits until the page listens, then says `text` as words not yet final — in one step in the page. */
  async interim(text: string): Promise<void> {
    await this.page.waitForFunction((words) => window.fakeSpeech.running && (window.fakeSpeech.interim(words), true), text);
  }

  /** Waits until the page listens, then says `text` as a final transcript — in one step in the page. */
  async final(text: string): Promise<void> {
    await this.page.waitForFunction((words) => window.fakeSpeech.running && (window.fakeSpeech.final(words), true), text);
  }

  /** What the page asked `available` and `install`. */
  asked(): Promise<FakeSpeechControl['asked']> {
    return this.page.evaluate(() => window.fakeSpeech.asked);
  }

  /** What each session the page started was asked for. */
  sessions(): Promise<FakeSessionAsked[]> {
    return this.page.evaluate(() => window.fakeSpeech.sessions);
  }

  /** Ends the speech pack's download the page asked for: installed, or failed. */
  async finishDownload(installed: boolean): Promise<void> {
    await this.page.evaluate((ok) => {
      window.fakeSpeech.finishDownload(ok);
    }, installed);
  }

  /** Waits until the page listens. */
  async listening(): Promise<void> {
    await this.page.waitForFunction(() => window.fakeSpeech.running);
  }
}
