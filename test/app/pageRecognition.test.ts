import { describe, expect, it } from 'vitest';
import { pageRecognition } from '../../src/app/page/pageRecognition';
import { createPageStore, openingState } from '../../src/app/page/pageStore';
import type { OnDeviceAvailability } from '../../src/core/hearing/onDeviceRecognition';
import type { RecognitionPhrase } from '../../src/core/hearing/recognitionPhrases';

/**
 * A recogniser whose answers the test gives, one call at a time. `answered()` resolves once every
 * answer given so far has reached the page: the page took each promise, and so heard it, first.
 */
function recogniserAnswering() {
  const pending: { onDevice: ((a: OnDeviceAvailability) => void)[]; install: { resolve: (ok: boolean) => void; reject: (e: Error) => void }[] } = { onDevice: [], install: [] };
  const asked: Promise<unknown>[] = [];
  const given: (readonly RecognitionPhrase[])[] = [];
  const recogniser = {
    onDevice: () => asking(new Promise<OnDeviceAvailability>((resolve) => pending.onDevice.push(resolve))),
    installOnDevice: () => asking(new Promise<boolean>((resolve, reject) => pending.install.push({ resolve, reject }))),
    setPhrases: (phrases: readonly RecognitionPhrase[]) => given.push(phrases),
  };
  function asking<T>(answer: Promise<T>): Promise<T> {
    asked.push(answer);
    return answer;
  }
  return { recogniser, pending, given, answered: () => Promise.allSettled(asked) };
}

function setUp(usedWords: () => Promise<readonly string[]> = () => new Promise(() => undefined)) {
  const store = createPageStore(openingState({ toldAboutListening: false, audioReady: false }));
  let language = 'en';
  const { recogniser, pending, given, answered } = recogniserAnswering();
  const recognition = pageRecognition({ recogniser, store, language: () => language, botName: 'Sage', usedWords });
  return { store, recognition, pending, given, answered, speak: (l: string) => (language = l) };
}

describe('where the page hears the reader’s language', () => {
  it('gives the recogniser the phrases, and keeps what the browser says of the language now', async () => {
    const { store, recognition, pending, given, answered, speak } = setUp();
    expect(given).toEqual([[{ text: 'Sage', boost: 3 }]]);
    expect(store.state().onDevice).toBe('unavailable');
    recognition.check();
    speak('fr');
    recognition.languageChanged();
    pending.onDevice[0]?.('available');
    pending.onDevice[1]?.('downloadable');
    await answered();
    // The English answer came for a page that now speaks French.
    expect(store.state().onDevice).toBe('downloadable');
  });

  it('favours the person’s own words once the server gives them, and the bot’s name alone when it cannot', async () => {
    // The page took the words' promise first, so it has them once the test has too.
    const words = Promise.resolve(['groceries', 'camping gear']);
    const read = setUp(() => words);
    await words;
    expect(read.given).toEqual([
      [{ text: 'Sage', boost: 3 }],
      [{ text: 'Sage', boost: 3 }, { text: 'groceries', boost: 2 }, { text: 'camping gear', boost: 2 }],
    ]);
    const refused = Promise.reject(new Error('offline'));
    const unread = setUp(() => refused);
    await refused.catch(() => undefined);
    expect(unread.given).toEqual([[{ text: 'Sage', boost: 3 }]]);
  });

  it('says the pack is downloading, then installed and heard on this device, or that it failed', async () => {
    const { store, recognition, pending, answered } = setUp();
    recognition.installPack();
    recognition.installPack();
    expect(store.state().speechPack).toBe('installing');
    expect(pending.install).toHaveLength(1);
    pending.install[0]?.resolve(true);
    await answered();
    expect(store.state()).toMatchObject({ speechPack: 'installed', onDevice: 'available' });

    type Call = (typeof pending.install)[number];
    const refusals = [
      (call: Call) => {
        call.resolve(false);
      },
      (call: Call) => {
        call.reject(new Error('No gesture.'));
      },
    ];
    for (const settle of refusals) {
      const again = setUp();
      again.recognition.installPack();
      const call = again.pending.install[0];
      if (call !== undefined) settle(call);
      await again.answered();
      expect(again.store.state()).toMatchObject({ speechPack: 'failed', onDevice: 'unavailable' });
    }
  });
});
