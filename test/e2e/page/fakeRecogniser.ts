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
 */
import type { Page } from '@playwright/test';

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
}

declare global {
  interface Window {
    fakeSpeech: FakeSpeechControl;
  }
}

/** Runs in the page before its own scripts; self-contained, as `addInitScript` serialises it. */
function installFake(refused: boolean): void {
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

    start(): void {
      if (this.#state !== 'idle') throw new DOMException('recognition has already started.', 'InvalidStateError');
      started += 1;
      if (refused) {
        this.#state = 'ending';
        setTimeout(() => {
          this.onerror?.({ error: 'not-allowed' });
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
  static async install(page: Page, options: { refused: boolean }): Promise<FakeSpeech> {
    await page.addInitScript(installFake, options.refused);
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

  /** Waits until the page listens. */
  async listening(): Promise<void> {
    await this.page.waitForFunction(() => window.fakeSpeech.running);
  }
}
