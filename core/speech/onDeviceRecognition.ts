/**
 * Where the person's words are turned into text, and what the page says of it. The browser says,
 * per language, whether it can recognise on this device (`SpeechRecognition.available` with
 * `processLocally`): `available` (its speech pack is installed), `downloadable`, `downloading`, or
 * `unavailable` — which is also what the page takes where the browser cannot say at all. Only
 * `available` is heard on this device; anything else is the browser's own recogniser, which may
 * send the audio to the browser's maker.
 */

export const ON_DEVICE_AVAILABILITIES = ['available', 'downloadable', 'downloading', 'unavailable'] as const;
/** What the browser says of recognising one language on this device. */
export type OnDeviceAvailability = (typeof ON_DEVICE_AVAILABILITIES)[number];

/** Where speech is turned into words: on this device, or wherever the browser's recogniser sends it. */
export type RecognitionPlace = 'device' | 'browser';

export function recognitionPlace(availability: OnDeviceAvailability): RecognitionPlace {
  return availability === 'available' ? 'device' : 'browser';
}

/** What the disclosure says before the page first listens: in full, and in a line once the person has typed. */
export interface DisclosureWords {
  full: string;
  brief: string;
}

export function disclosureWords(place: RecognitionPlace): DisclosureWords {
  if (place === 'device') {
    return {
      full: 'Your browser turns speech into words here, on this device: what you say is heard on this device and not sent away to be recognised. You can type instead at any time.',
      brief: 'Your browser hears what you say on this device; it is not sent away to be recognised.',
    };
  }
  return {
    full: 'Your browser turns speech into words with its own recogniser, which may send what you say to the browser’s maker (for Chrome, Google). You can type instead at any time.',
    brief: 'Your browser’s recogniser may send what you say to its maker (for Chrome, Google).',
  };
}

/** The speech pack's download as asked for on this page: not asked, under way, done, or failed. */
export type SpeechPackDownload = 'idle' | 'installing' | 'installed' | 'failed';

/** What the settings say of the on-device speech pack, and the button that downloads it (null: none). */
export interface SpeechPackOffer {
  sentence: string;
  button: string | null;
}

/**
 * The settings' offer for the reader's language (`languageName`, as the reader reads it), or null
 * where there is nothing to offer: the browser cannot recognise it on this device, or already does
 * and nothing was downloaded here.
 */
export function speechPackOffer(availability: OnDeviceAvailability, download: SpeechPackDownload, languageName: string): SpeechPackOffer | null {
  if (download === 'installed') return { sentence: `The speech pack for ${languageName} is installed: from now on, what you say is heard on this device.`, button: null };
  if (download === 'installing' || availability === 'downloading') {
    return { sentence: `Downloading the speech pack for ${languageName}. Until it is done, your browser’s recogniser may still send what you say to its maker.`, button: null };
  }
  if (download === 'failed') {
    return { sentence: `The speech pack for ${languageName} could not be downloaded. Check that you are online and that this device has room for it, then try again.`, button: 'Try the download again' };
  }
  if (availability === 'downloadable') {
    return { sentence: `Your browser can hear ${languageName} on this device, without sending what you say away, once it has downloaded a speech pack.`, button: 'Download the speech pack' };
  }
  return null;
}

/** What the browser said, as one of the four; anything else (a browser that said something new) is `unavailable`. */
export function onDeviceAvailability(said: unknown): OnDeviceAvailability {
  return ON_DEVICE_AVAILABILITIES.find((known) => known === said) ?? 'unavailable';
}
