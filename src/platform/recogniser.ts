/**
 * The browser's speech recogniser (Web Speech API) behind a small interface, so the machine never
 * sees the API's quirks and tests can put a fake in its place (by defining `SpeechRecognition` on
 * the page before it loads).
 *
 * Continuous, with interim results, in the reader's language. The recogniser opens its own
 * microphone capture, which the page's echo cancellation does not touch — that is why the machine
 * stops it whenever the assistant is audible. Chrome ends a continuous session by itself after a
 * silence; that is reported as `ended` and the machine starts it again. A session that ends (or
 * fails) young is not reopened at once: the next one waits out `restartWaitMs` (250 ms doubling to
 * 5 s, over again once a word is heard), so a browser that refuses every session cannot spin the
 * page.
 *
 * Where the browser can recognise a language on this device (`SpeechRecognition.available({ langs,
 * processLocally: true })` says `available`: Chrome's, once its speech pack is installed), every
 * session in it is asked to be (`processLocally = true`), which the page then says; elsewhere the
 * recogniser may send audio to its browser's maker, which the page says instead. `installOnDevice`
 * downloads a missing pack. Where the browser takes phrases to favour (`phrases` of
 * `SpeechRecognitionPhrase`), each session is given them. Each of these is looked for; a browser
 * without it behaves as before. The names are the spec's, and Chromium 156's (checked: all four
 * there by default; on-device came behind a flag in 139). The spec's drafts and Chrome's trial had
 * `availableOnDevice(lang)`, `installOnDevice(lang)` and `mode`, which are not looked for: such a
 * browser listens as before. Where the spec and Chrome differ — Chrome's server recogniser refuses
 * phrases that the spec lets any recogniser take — see `phrasesRefused`.
 */
import type { RecogniserError } from '../../common/conversation/events';
import { onDeviceAvailability, recognitionPlace } from '../core/hearing/onDeviceRecognition';
import type { OnDeviceAvailability, RecognitionPlace } from '../core/hearing/onDeviceRecognition';
import type { RecognitionPhrase } from '../core/hearing/recognitionPhrases';
import { restartBackoff, restartWaitMs } from '../core/hearing/restartBackoff';
import type { RestartBackoff } from '../core/hearing/restartBackoff';

interface RecogniserEvents {
  /** Words not yet committed to: the live line. */
  interim: (text: string) => void;
  /** A committed transcript: the question. */
  final: (text: string) => void;
  /** The session ended by itself (not by `stop`). */
  ended: () => void;
  failed: (error: RecogniserError) => void;
}

export interface Recogniser {
  /** Starts listening in `language` (a Supertonic language code such as `en`, or a BCP 47 tag). */
  start(language: string): void;
  /** Stops listening; what was already said still arrives as `final`, nothing else from this session. */
  stop(): void;
  on<K extends keyof RecogniserEvents>(event: K, listener: RecogniserEvents[K]): () => void;
  /**
   * What the browser says of hearing `language` on this device; once it has said `available`, every
   * session in it is heard on this device, a running one reopened so. `unavailable` where the
   * browser cannot say, or may not (a Permissions-Policy without `on-device-speech-recognition`).
   */
  onDevice(language: string): Promise<OnDeviceAvailability>;
  /**
   * Downloads the browser's speech pack for `language`; called from a person's click (Chrome wants
   * a user gesture for it). Resolves whether it is installed; once it is, sessions in it are heard on this device,
   * a running one reopened so. False where the browser cannot install one; rejects as it does.
   */
  installOnDevice(language: string): Promise<boolean>;
  /** The phrases to favour from the next session on; kept, and unused, where the browser takes none. */
  setPhrases(phrases: readonly RecognitionPhrase[]): void;
}

/** The parts of the Web Speech API's recognition object the adapter uses. */
interface SpeechRecognitionLike extends EventTarget {
  continuous: boolean;
  interimResults: boolean;
  lang: string;
  maxAlternatives: number;
  /** Where on-device recognition is offered: true asks this session to be heard on this device only. */
  processLocally?: boolean;
  /** Where contextual biasing is offered: the `SpeechRecognitionPhrase`s to favour. */
  phrases?: unknown[];
  start(): void;
  stop(): void;
  abort(): void;
  onresult: ((event: SpeechResultEventLike) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
}

interface SpeechResultEventLike {
  resultIndex: number;
  results: ArrayLike<{ isFinal: boolean; 0?: { transcript: string } }>;
}

/** What `available` and `install` are asked: languages as BCP 47 tags, on this device. */
interface OnDeviceOptions {
  langs: string[];
  processLocally: boolean;
}

interface RecognitionConstructor {
  new (): SpeechRecognitionLike;
  readonly prototype: object;
  available?: (options: OnDeviceOptions) => Promise<unknown>;
  install?: (options: OnDeviceOptions) => Promise<unknown>;
}

type PhraseConstructor = new (phrase: string, boost: number) => object;

/** The browser's recogniser constructor, or undefined where there is none (Firefox). */
function recognitionIn(scope: object): RecognitionConstructor | undefined {
  const found = (scope as { SpeechRecognition?: unknown; webkitSpeechRecognition?: unknown }).SpeechRecognition ?? (scope as { webkitSpeechRecognition?: unknown }).webkitSpeechRecognition;
  return typeof found === 'function' ? (found as RecognitionConstructor) : undefined;
}

/** The phrase constructor where the browser takes phrases at all (secure pages only, in Chromium). */
function phraseIn(scope: object, Recognition: RecognitionConstructor): PhraseConstructor | undefined {
  const found = (scope as { SpeechRecognitionPhrase?: unknown }).SpeechRecognitionPhrase;
  return typeof found === 'function' && 'phrases' in Recognition.prototype ? (found as PhraseConstructor) : undefined;
}

/** Whether this browser has a speech recogniser at all. */
export function hasRecogniser(scope: object = globalThis): boolean {
  return recognitionIn(scope) !== undefined;
}

/**
 * The tag the recogniser is asked for: the browser's own regional variant when it speaks the same
 * language (`en` on an `en-GB` browser listens for British English), else the code as given.
 */
export function recognitionLanguage(language: string, browserLanguages: readonly string[]): string {
  if (language.includes('-')) return language;
  const regional = browserLanguages.find((tag) => tag.toLowerCase().startsWith(`${language.toLowerCase()}-`));
  return regional ?? language;
}

/**
 * What a `start()` that threw is reported as. The browser refused to open a session at all (a
 * refused permission, or a recogniser that will not run here): that is no `aborted` session to
 * reopen at once, but a recogniser that will not listen, which the person is told.
 */
function refusalOf(error: unknown): RecogniserError {
  return error instanceof Error && error.name === 'NotAllowedError' ? 'not-allowed' : 'service-not-allowed';
}

/** The Web Speech recogniser; undefined where the browser has none. `backoff` over the defaults. */
export function webSpeechRecogniser(
  scope: object = globalThis,
  browserLanguages: readonly string[] = navigator.languages,
  backoff: Partial<RestartBackoff> = {},
): Recogniser | undefined {
  const Recognition = recognitionIn(scope);
  if (Recognition === undefined) return undefined;
  const { available, install } = Recognition;
  /** Whether this browser can be asked about, and for, recognition on this device. */
  const offersOnDevice = typeof available === 'function' && 'processLocally' in Recognition.prototype;
  const Phrase = phraseIn(scope, Recognition);
  const restart = restartBackoff(backoff);
  const listeners: { [K in keyof RecogniserEvents]: Set<RecogniserEvents[K]> } = { interim: new Set(), final: new Set(), ended: new Set(), failed: new Set() };
  const emit = <K extends keyof RecogniserEvents>(event: K, ...args: Parameters<RecogniserEvents[K]>) => {
    for (const listener of listeners[event]) (listener as (...a: Parameters<RecogniserEvents[K]>) => void)(...args);
  };

  /** The session now, if any; a stopped one is dropped at once, so its late events say nothing. */
  let session: SpeechRecognitionLike | undefined;
  /** Sessions asked to stop whose `end` has not come: a new one waits for it (Chrome refuses two). */
  let stopping: SpeechRecognitionLike | undefined;
  let wanted: string | undefined;
  /** Sessions in a row that ended by themselves without a word heard. */
  let endedInRow = 0;
  /** When the last session was opened (`Date.now()`), for the backoff. */
  let openedAtMs = Number.NEGATIVE_INFINITY;
  /** The next session, waiting out the backoff; it opens in `wanted`. */
  let due: ReturnType<typeof setTimeout> | undefined;
  /** What the browser last said of each language tag on this device; only `available` is heard there. */
  const onDeviceNow = new Map<string, OnDeviceAvailability>();
  let phrases: readonly RecognitionPhrase[] = [];
  /**
   * Where the browser refused a session's phrases (`phrases-not-supported`: Chrome's server
   * recogniser takes none, only its on-device one does, though the spec lets either): sessions
   * there are given none again on this page.
   */
  const phrasesRefused = new Set<RecognitionPlace>();

  /** Opens a session in `language` now, or once the backoff since the last one has passed. */
  const openWhenDue = (language: string) => {
    if (due !== undefined) return;
    const waitMs = openedAtMs + restartWaitMs(endedInRow, restart) - Date.now();
    if (waitMs <= 0) {
      open(language);
      return;
    }
    due = setTimeout(() => {
      due = undefined;
      if (wanted !== undefined && session === undefined && stopping === undefined) open(wanted);
    }, waitMs);
  };

  const open = (language: string) => {
    const recognition = new Recognition();
    recognition.continuous = true;
    recognition.interimResults = true;
    recognition.maxAlternatives = 1;
    recognition.lang = recognitionLanguage(language, browserLanguages);
    const place = recognitionPlace(onDeviceNow.get(recognition.lang) ?? 'unavailable');
    if (place === 'device') recognition.processLocally = true;
    const biased = Phrase !== undefined && !phrasesRefused.has(place) && phrases.length > 0;
    if (biased) recognition.phrases = phrases.map((phrase) => new Phrase(phrase.text, phrase.boost));
    recognition.onresult = (event) => {
      // A stopping session still hands over what it had heard (the end of a held sentence), but
      // its unfinished words are no longer live.
      const live = session === recognition;
      if (!live && stopping !== recognition) return;
      endedInRow = 0;
      let interim = '';
      for (let i = event.resultIndex; i < event.results.length; i += 1) {
        const result = event.results[i];
        const text = result?.[0]?.transcript ?? '';
        if (result?.isFinal === true) {
          if (text.trim() !== '') emit('final', text.trim());
        } else {
          interim += text;
        }
      }
      if (live && interim.trim() !== '') emit('interim', interim.trim());
    };
    recognition.onerror = (event) => {
      if (session !== recognition) return;
      if (biased && event.error === 'phrases-not-supported') {
        // Not the machine's business: the session is reopened, without phrases, once this one ends.
        phrasesRefused.add(place);
        session = undefined;
        stopping = recognition;
        return;
      }
      session = undefined;
      endedInRow += 1;
      emit('failed', event.error);
    };
    recognition.onend = () => {
      if (stopping === recognition) {
        stopping = undefined;
        if (wanted !== undefined && session === undefined) openWhenDue(wanted);
        return;
      }
      if (session !== recognition) return;
      session = undefined;
      endedInRow += 1;
      emit('ended');
    };
    session = recognition;
    openedAtMs = Date.now();
    try {
      recognition.start();
    } catch (error) {
      session = undefined;
      endedInRow += 1;
      // Said after `start()` has returned, never inside it: the machine that called it is mid-step.
      queueMicrotask(() => {
        if (wanted !== undefined && session === undefined) emit('failed', refusalOf(error));
      });
    }
  };

  const stop = () => {
    wanted = undefined;
    clearTimeout(due);
    due = undefined;
    const current = session;
    if (current === undefined) return;
    session = undefined;
    stopping = current;
    // `stop`, not `abort`: what was said before the stop (a held sentence) still arrives as final.
    current.stop();
  };

  const start = (language: string) => {
    wanted = language;
    if (session !== undefined) {
      if (session.lang === recognitionLanguage(language, browserLanguages)) return;
      stop();
      wanted = language;
    }
    if (stopping === undefined) openWhenDue(language);
  };

  /** A session listening in `tag` off the device is reopened on it: what is said next is heard here. */
  const moveOntoDevice = (tag: string) => {
    if (wanted === undefined || session?.lang !== tag || session.processLocally === true) return;
    const listening = wanted;
    stop();
    start(listening);
  };

  return {
    start,
    stop,
    on(event, listener) {
      listeners[event].add(listener);
      return () => listeners[event].delete(listener);
    },
    async onDevice(language) {
      const tag = recognitionLanguage(language, browserLanguages);
      if (!offersOnDevice) return 'unavailable';
      let said: unknown;
      try {
        said = await available.call(Recognition, { langs: [tag], processLocally: true });
      } catch {
        // Refused (a Permissions-Policy, a tag the browser will not read): not on this device.
        said = 'unavailable';
      }
      const availability = onDeviceAvailability(said);
      onDeviceNow.set(tag, availability);
      if (availability === 'available') moveOntoDevice(tag);
      return availability;
    },
    async installOnDevice(language) {
      const tag = recognitionLanguage(language, browserLanguages);
      if (!offersOnDevice || typeof install !== 'function') return false;
      // The same options as `available` (one dictionary in the spec), though install reads only `langs`.
      if ((await install.call(Recognition, { langs: [tag], processLocally: true })) !== true) return false;
      onDeviceNow.set(tag, 'available');
      moveOntoDevice(tag);
      return true;
    },
    setPhrases(given) {
      phrases = [...given];
    },
  };
}
