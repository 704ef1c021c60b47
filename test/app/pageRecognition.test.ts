import { describe, expect, it } from 'vitest';
import { pageRecognition } from '../../src/app/page/pageRecognition';
import { createPageStore, openingState } from '../../src/app/page/pageStore';
import type { OnDeviceAvailability } from '../../src/core/speech/onDeviceRecognition';
import type { RecognitionPhrase } from '../../src/core/speech/recognitionPhrases';

/** A recogniser whose answers the test gives, one call at a time. */
function recogniserAnswering() {
  const pending: { onDevice: ((a: OnDeviceAvailability) => void)[]; install: { resolve: (ok: boolean) => void; reject: (e: Error) => void }[] } = { onDevice: [], install: [] };
  const given: (readonly RecognitionPhrase[])[] = [];
  const recogniser = {
    onDevice: () => new Promise<OnDeviceAvailability>((resolve) => pending.onDevice.push(resolve)),
    installOnDevice: () => new Promise<boolean>((resolve, reject) => pending.install.push({ resolve, reject })),
    setPhrases: (phrases: readonly RecognitionPhrase[]) => given.push(phrases),
  };
  return { recogniser, pending, given };
}

function setUp(usedWords: () => Promise<readonly string[]> = () => new Promise(() => undefined)) {
  const store = createPageStore(openingState({ toldAboutListening: false, audioReady: false }));
  let language = 'en';
  const { recogniser, pending, given } = recogniserAnswering();
  const recognition = pageRecognition({ recogniser, store, language: () => language, botName: 'Sage', usedWords });
  return { store, recognition, pending, given, speak: (l: string) => (language = l) };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('where the page hears the reader’s language', () => {
  it('gives the recogniser the phrases, and keeps what the browser says of the language now', async () => {
    const { store, recognition, pending, given, speak } = setUp();
    expect(given).toEqual([[{ text: 'Sage', boost: 3 }]]);
    expect(store.state().onDevice).toBe('unavailable');
    recognition.check();
    speak('fr');
    recognition.languageChanged();
    pending.onDevice[0]?.('available');
    pending.onDevice[1]?.('downloadable');
    await flush();
    // The English answer came for a page that now speaks French.
    expect(store.state().onDevice).toBe('downloadable');
  });

  it('favours the person’s own words once the server gives them, and the bot’s name alone when it cannot', async () => {
    const read = setUp(() => Promise.resolve(['groceries', 'camping gear']));
    await flush();
    expect(read.given).toEqual([
      [{ text: 'Sage', boost: 3 }],
      [{ text: 'Sage', boost: 3 }, { text: 'groceries', boost: 2 }, { text: 'camping gear', boost: 2 }],
    ]);
    const unread = setUp(() => Promise.reject(new Error('offline')));
    await flush();
    expect(unread.given).toEqual([[{ text: 'Sage', boost: 3 }]]);
  });

  it('says the pack is downloading, then installed and heard on this device, or that it failed', async () => {
    const { store, recognition, pending } = setUp();
    recognition.installPack();
    recognition.installPack();
    expect(store.state().speechPack).toBe('installing');
    expect(pending.install).toHaveLength(1);
    pending.install[0]?.resolve(true);
    await flush();
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
      await flush();
      expect(again.store.state()).toMatchObject({ speechPack: 'failed', onDevice: 'unavailable' });
    }
  });
});
