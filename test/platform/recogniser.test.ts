import { afterEach, describe, expect, it, vi } from 'vitest';
import { restartWaitMs } from '../../src/core/hearing/restartBackoff';
import { hasRecogniser, recognitionLanguage, webSpeechRecogniser } from '../../src/platform/recogniser';
import type { Recogniser } from '../../src/platform/recogniser';

/** A stand-in for the browser's recognition object that the test drives by hand. */
class FakeRecognition {
  static made: FakeRecognition[] = [];
  continuous = false;
  interimResults = false;
  lang = '';
  maxAlternatives = 0;
  started = false;
  stopped = false;
  onresult: ((event: { resultIndex: number; results: { isFinal: boolean; 0: { transcript: string } }[] }) => void) | null = null;
  onerror: ((event: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  constructor() {
    FakeRecognition.made.push(this);
  }
  start() {
    this.started = true;
  }
  stop() {
    this.stopped = true;
  }
  abort() {
    this.stopped = true;
  }
  say(results: [string, boolean][], resultIndex = 0) {
    this.onresult?.({ resultIndex, results: results.map(([transcript, isFinal]) => ({ isFinal, 0: { transcript } })) });
  }
}

function setUp(languages: string[] = ['en-GB', 'en']) {
  FakeRecognition.made = [];
  const recogniser = webSpeechRecogniser({ SpeechRecognition: FakeRecognition }, languages);
  if (recogniser === undefined) throw new Error('no recogniser');
  const heard: string[] = [];
  recogniser.on('interim', (t) => heard.push(`interim ${t}`));
  recogniser.on('final', (t) => heard.push(`final ${t}`));
  recogniser.on('ended', () => heard.push('ended'));
  recogniser.on('failed', (e) => heard.push(`failed ${e}`));
  const session = (i = -1) => {
    const made = FakeRecognition.made.at(i);
    if (made === undefined) throw new Error('no session');
    return made;
  };
  return { recogniser, heard, session };
}

describe('the Web Speech recogniser', () => {
  it('is missing where the browser has none, and found under either name', () => {
    expect(hasRecogniser({})).toBe(false);
    expect(webSpeechRecogniser({}, [])).toBeUndefined();
    expect(hasRecogniser({ webkitSpeechRecognition: FakeRecognition })).toBe(true);
  });

  it('listens continuously with interim results, in the browser’s own variant of the language', () => {
    const { recogniser, session } = setUp();
    recogniser.start('en');
    expect(session()).toMatchObject({ continuous: true, interimResults: true, lang: 'en-GB', started: true });
    expect(recognitionLanguage('ko', ['en-GB'])).toBe('ko');
    expect(recognitionLanguage('pt-BR', ['pt-PT'])).toBe('pt-BR');
  });

  it('reports unfinished words as interim and committed ones as final', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().say([['what is', false]]);
    session().say([['what is the', false], [' weather', false]]);
    session().say([['what is the weather', true]]);
    session().say([['what is the weather', true], ['and', false]], 1);
    expect(heard).toEqual(['interim what is', 'interim what is the weather', 'final what is the weather', 'interim and']);
  });

  it('says when a session ends by itself, but not when it was stopped', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().onend?.();
    expect(heard).toEqual(['ended']);
    recogniser.start('en');
    recogniser.stop();
    session().onend?.();
    expect(heard).toEqual(['ended']);
  });

  it('still hands over a held sentence that arrives after the stop, but no more live words', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().say([['turn it', false]]);
    recogniser.stop();
    expect(session().stopped).toBe(true);
    session().say([['turn it off', false]]);
    session().say([['turn it off', true]]);
    expect(heard).toEqual(['interim turn it', 'final turn it off']);
  });

  it('waits for a stopping session to end before opening the next (the browser refuses two)', () => {
    const { recogniser, session } = setUp();
    recogniser.start('en');
    recogniser.stop();
    recogniser.start('en');
    expect(FakeRecognition.made).toHaveLength(1);
    session().onend?.();
    expect(FakeRecognition.made).toHaveLength(2);
    expect(session().started).toBe(true);
  });

  it('reports failures by the API’s own error codes, and ignores a stopped session’s', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().onerror?.({ error: 'not-allowed' });
    expect(heard).toEqual(['failed not-allowed']);
    recogniser.start('en');
    recogniser.stop();
    session().onerror?.({ error: 'aborted' });
    expect(heard).toEqual(['failed not-allowed']);
  });

  it('starts once however often it is asked, and restarts for a new language', () => {
    const { recogniser, session } = setUp(['en-US']);
    recogniser.start('en');
    recogniser.start('en');
    expect(FakeRecognition.made).toHaveLength(1);
    recogniser.start('fr');
    session(0).onend?.();
    expect(FakeRecognition.made).toHaveLength(2);
    expect(session().lang).toBe('fr');
  });

  describe('restarting', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** Restarts the recogniser whenever it ends or fails in passing, as the conversation machine does. */
    function restartLikeTheMachine(recogniser: Recogniser): void {
      recogniser.on('ended', () => {
        recogniser.start('en');
      });
      recogniser.on('failed', (error) => {
        if (error === 'no-speech' || error === 'aborted') recogniser.start('en');
      });
    }

    /** A recognition object that every browser session aborts the moment it starts. */
    class AlwaysAborts extends FakeRecognition {
      override start() {
        super.start();
        queueMicrotask(() => {
          this.onerror?.({ error: 'aborted' });
          this.onend?.();
        });
      }
    }

    it('waits 250 ms doubling to 5 s between sessions that fail at once, so it never spins', async () => {
      vi.useFakeTimers();
      FakeRecognition.made = [];
      const recogniser = webSpeechRecogniser({ SpeechRecognition: AlwaysAborts }, ['en-US']);
      if (recogniser === undefined) throw new Error('no recogniser');
      restartLikeTheMachine(recogniser);
      const openedAtMs: number[] = [];
      const started = Date.now();
      recogniser.start('en');
      for (let elapsed = 0; elapsed < 20_000; elapsed += 1) {
        while (openedAtMs.length < FakeRecognition.made.length) openedAtMs.push(Date.now() - started);
        await vi.advanceTimersByTimeAsync(1);
      }
      const gaps = openedAtMs.slice(1).map((at, i) => at - (openedAtMs[i] ?? 0));
      expect(gaps.slice(0, 7)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
      expect(FakeRecognition.made.length).toBeLessThanOrEqual(9);
    });

    it('starts over from 250 ms once a word is heard, and reopens at once after a long session', async () => {
      vi.useFakeTimers();
      const { recogniser, session } = setUp();
      recogniser.start('en');
      session().onend?.();
      recogniser.start('en');
      expect(FakeRecognition.made).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(250);
      expect(FakeRecognition.made).toHaveLength(2);
      session().onend?.();
      recogniser.start('en');
      await vi.advanceTimersByTimeAsync(499);
      expect(FakeRecognition.made).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(FakeRecognition.made).toHaveLength(3);
      session().say([['hello', true]]);
      session().onend?.();
      recogniser.start('en');
      await vi.advanceTimersByTimeAsync(250);
      expect(FakeRecognition.made).toHaveLength(4);
      // Eight silent seconds, then the browser's no-speech: that session has waited long enough.
      await vi.advanceTimersByTimeAsync(8000);
      session().onerror?.({ error: 'no-speech' });
      recogniser.start('en');
      expect(FakeRecognition.made).toHaveLength(5);
      expect(restartWaitMs(0)).toBe(0);
    });

    it('opens nothing that was waiting once it is stopped', async () => {
      vi.useFakeTimers();
      const { recogniser, session } = setUp();
      recogniser.start('en');
      session().onend?.();
      recogniser.start('en');
      recogniser.stop();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(FakeRecognition.made).toHaveLength(1);
    });

    it('reports a start() that throws as a recogniser that will not run, after start() has returned, and opens no other', async () => {
      vi.useFakeTimers();
      class Throws extends FakeRecognition {
        override start(): void {
          throw new DOMException('The recogniser is not available.', 'InvalidStateError');
        }
      }
      class Refuses extends FakeRecognition {
        override start(): void {
          throw new DOMException('Permission denied.', 'NotAllowedError');
        }
      }
      for (const [Recognition, reported] of [
        [Throws, 'service-not-allowed'],
        [Refuses, 'not-allowed'],
      ] as const) {
        FakeRecognition.made = [];
        const recogniser = webSpeechRecogniser({ SpeechRecognition: Recognition }, ['en-US']);
        if (recogniser === undefined) throw new Error('no recogniser');
        restartLikeTheMachine(recogniser);
        const failures: string[] = [];
        recogniser.on('failed', (error) => failures.push(error));
        recogniser.start('en');
        expect(failures).toEqual([]);
        await Promise.resolve();
        expect(failures).toEqual([reported]);
        // Past the longest backoff (5 s): nothing else opens.
        await vi.advanceTimersByTimeAsync(10_000);
        expect(FakeRecognition.made).toHaveLength(1);
      }
    });
  });
});

describe('the Web Speech recogniser on this device, and with phrases', () => {
  /** A recognition object of a browser that recognises on the device and takes phrases (Chromium 139 on). */
  class OnDeviceRecognition extends FakeRecognition {
    static availability = 'downloadable';
    static asked: { available: unknown[]; install: unknown[] } = { available: [], install: [] };
    static installs = true;
    static available(options: unknown): Promise<string> {
      OnDeviceRecognition.asked.available.push(options);
      return Promise.resolve(OnDeviceRecognition.availability);
    }
    static install(options: unknown): Promise<boolean> {
      OnDeviceRecognition.asked.install.push(options);
      return Promise.resolve(OnDeviceRecognition.installs);
    }
    #processLocally = false;
    #phrases: unknown[] = [];
    // Accessors, as the browser's attributes are: found on the prototype before any instance.
    get processLocally(): boolean {
      return this.#processLocally;
    }
    set processLocally(value: boolean) {
      this.#processLocally = value;
    }
    get phrases(): unknown[] {
      return this.#phrases;
    }
    set phrases(value: unknown[]) {
      this.#phrases = value;
    }
  }

  class Phrase {
    constructor(
      readonly phrase: string,
      readonly boost: number,
    ) {}
  }

  function onDevice(availability: string, scope: object = { SpeechRecognition: OnDeviceRecognition, SpeechRecognitionPhrase: Phrase }) {
    FakeRecognition.made = [];
    OnDeviceRecognition.availability = availability;
    OnDeviceRecognition.asked = { available: [], install: [] };
    OnDeviceRecognition.installs = true;
    const recogniser = webSpeechRecogniser(scope, ['en-GB']);
    if (recogniser === undefined) throw new Error('no recogniser');
    const session = () => FakeRecognition.made.at(-1) as OnDeviceRecognition;
    return { recogniser, session };
  }

  it('asks for the page’s language on this device, and listens there once the browser says it can', async () => {
    const { recogniser, session } = onDevice('available');
    expect(await recogniser.onDevice('en')).toBe('available');
    expect(OnDeviceRecognition.asked.available).toEqual([{ langs: ['en-GB'], processLocally: true }]);
    recogniser.start('en');
    expect(session().processLocally).toBe(true);
  });

  it('moves a session already listening onto this device once the browser says it can (a language just picked)', async () => {
    const { recogniser, session } = onDevice('available');
    recogniser.start('en');
    const before = session();
    expect(before.processLocally).toBe(false);
    await recogniser.onDevice('en');
    expect(before.stopped).toBe(true);
    before.onend?.();
    expect(session()).toMatchObject({ processLocally: true, started: true });
  });

  it('listens as today where the pack is missing, or the browser cannot say', async () => {
    const { recogniser, session } = onDevice('downloadable');
    recogniser.start('en');
    expect(session().processLocally).toBe(false);
    recogniser.stop();
    session().onend?.();
    expect(await recogniser.onDevice('en')).toBe('downloadable');
    recogniser.start('en');
    expect(session().processLocally).toBe(false);

    const plain = webSpeechRecogniser({ SpeechRecognition: FakeRecognition }, ['en-GB']);
    expect(await plain?.onDevice('en')).toBe('unavailable');
    expect(await plain?.installOnDevice('en')).toBe(false);
    class Refuses extends OnDeviceRecognition {
      static override available(): Promise<string> {
        return Promise.reject(new DOMException('Blocked by a Permissions-Policy.', 'NotAllowedError'));
      }
    }
    expect(await webSpeechRecogniser({ SpeechRecognition: Refuses }, ['en-GB'])?.onDevice('en')).toBe('unavailable');
  });

  it('installs the pack when asked, and reopens the running session on this device', async () => {
    const { recogniser, session } = onDevice('downloadable');
    await recogniser.onDevice('en');
    recogniser.start('en');
    const before = session();
    expect(await recogniser.installOnDevice('en')).toBe(true);
    expect(OnDeviceRecognition.asked.install).toEqual([{ langs: ['en-GB'], processLocally: true }]);
    expect(before.stopped).toBe(true);
    before.onend?.();
    expect(session()).not.toBe(before);
    expect(session()).toMatchObject({ processLocally: true, started: true });

    // A pack the browser could not install leaves the language heard as before.
    OnDeviceRecognition.installs = false;
    expect(await recogniser.installOnDevice('fr')).toBe(false);
    recogniser.start('fr');
    session().onend?.();
    expect(session()).toMatchObject({ lang: 'fr', processLocally: false, started: true });
  });

  it('gives each session the phrases to favour where the browser takes them', () => {
    const { recogniser, session } = onDevice('available');
    recogniser.setPhrases([
      { text: 'Sage', boost: 3 },
      { text: 'shopping', boost: 2 },
    ]);
    recogniser.start('en');
    expect(session().phrases).toEqual([new Phrase('Sage', 3), new Phrase('shopping', 2)]);

    const noPhrases = onDevice('available', { SpeechRecognition: OnDeviceRecognition });
    noPhrases.recogniser.setPhrases([{ text: 'Sage', boost: 3 }]);
    noPhrases.recogniser.start('en');
    expect(noPhrases.session().phrases).toEqual([]);
  });

  it('reopens without phrases, saying nothing, where the browser refuses them (Chrome’s server recogniser)', async () => {
    const { recogniser, session } = onDevice('downloadable');
    const heard: string[] = [];
    recogniser.on('failed', (error) => heard.push(error));
    recogniser.on('ended', () => heard.push('ended'));
    recogniser.setPhrases([{ text: 'Sage', boost: 3 }]);
    recogniser.start('en');
    const refused = session();
    refused.onerror?.({ error: 'phrases-not-supported' });
    refused.onend?.();
    expect(heard).toEqual([]);
    expect(FakeRecognition.made).toHaveLength(2);
    expect(session()).toMatchObject({ started: true, processLocally: false, phrases: [] });

    // On this device they are given again: it was the server recogniser that refused them.
    await recogniser.installOnDevice('en');
    session().onend?.();
    expect(FakeRecognition.made).toHaveLength(3);
    expect(session()).toMatchObject({ processLocally: true, phrases: [new Phrase('Sage', 3)] });
    session().onerror?.({ error: 'phrases-not-supported' });
    session().onend?.();
    expect(session()).toMatchObject({ processLocally: true, phrases: [] });
    // Without phrases, the same error is the browser's to report, not a refusal of phrases.
    session().onerror?.({ error: 'phrases-not-supported' });
    expect(heard).toEqual(['phrases-not-supported']);
  });
});
