/**
 * Where the page's recogniser hears the reader's language, kept in the store for the disclosure and
 * the settings: asked of the browser as the page opens, when the language changes and when the
 * settings open (a pack may have finished downloading since); and the speech pack's download, which
 * the person asks for from the settings. The recogniser is also given the phrases to favour.
 */
import type { Recogniser } from '../../platform/recogniser';
import { recognitionPhrases } from '../../core/hearing/recognitionPhrases';
import type { PageStore } from './pageStore';

export interface PageRecognitionPorts {
  recogniser: Pick<Recogniser, 'onDevice' | 'installOnDevice' | 'setPhrases'> | undefined;
  store: PageStore;
  /** The reader's language now. */
  language: () => string;
  /** The bot's name: the first phrase the recogniser is to favour. */
  botName: string;
  /** The words the person uses with the bot's apps (their lists' names), favoured once they are read. */
  usedWords: () => Promise<readonly string[]>;
}

export interface PageRecognition {
  /** Asks the browser again whether the reader's language is heard on this device. */
  check: () => void;
  /** The language changed: what was downloaded for the last one says nothing of this one. */
  languageChanged: () => void;
  /** Downloads the speech pack for the reader's language (the person pressed the settings' button). */
  installPack: () => void;
}

export function pageRecognition(ports: PageRecognitionPorts): PageRecognition {
  const { recogniser, store } = ports;
  recogniser?.setPhrases(recognitionPhrases(ports.botName));
  // The person's own words come from the server; until they do (or if they cannot), the name alone.
  if (recogniser !== undefined) {
    ports.usedWords().then(
      (words) => {
        recogniser.setPhrases(recognitionPhrases(ports.botName, words));
      },
      () => undefined,
    );
  }

  const check = (): void => {
    if (recogniser === undefined) return;
    const language = ports.language();
    void recogniser.onDevice(language).then((onDevice) => {
      // An answer for a language the reader has since left is not theirs any more.
      if (ports.language() === language) store.update({ onDevice });
    });
  };

  return {
    check,
    languageChanged() {
      store.update({ onDevice: 'unavailable', speechPack: 'idle' });
      check();
    },
    installPack() {
      if (recogniser === undefined || store.state().speechPack === 'installing') return;
      const language = ports.language();
      store.update({ speechPack: 'installing' });
      const settle = (installed: boolean) => {
        if (ports.language() !== language) return;
        store.update(installed ? { speechPack: 'installed', onDevice: 'available' } : { speechPack: 'failed' });
      };
      recogniser.installOnDevice(language).then(settle, () => {
        settle(false);
      });
    },
  };
}
