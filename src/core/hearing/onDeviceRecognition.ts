/**
 * Where the person's words are turned into text, and what the page says of it. The browser says,
 * per language, whether it can recognise on this device (`SpeechRecognition.available` with
 * `processLocally`): `available` (its speech pack is installed), `downloadable`, `downloading`, or
 * `unavailable` — which is also what the page takes where the browser cannot say at all. Only
 * `available` is heard on this device; anything else is the browser's own recogniser, which may
 * send the audio to the browser's maker.
 */
import type { PageSay } from '../../../common/pageWords';

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

export function disclosureWords(place: RecognitionPlace, say: PageSay): DisclosureWords {
  return place === 'device'
    ? { full: say('page-hearing.on-device-full'), brief: say('page-hearing.on-device-brief') }
    : { full: say('page-hearing.in-browser-full'), brief: say('page-hearing.in-browser-brief') };
}

/** The speech pack's download as asked for on this page: not asked, under way, done, or failed. */
export type SpeechPackDownload = 'idle' | 'installing' | 'installed' | 'failed';

/** What the settings say of the on-device speech pack, and the button that downloads it (null: none). */
export interface SpeechPackOffer {
  sentence: string;
  button: string | null;
}

/**
 * The settings' offer for the reader's language (`languageName`, as the reader reads it), in `say`'s words, or null
 * where there is nothing to offer: the browser cannot recognise it on this device, or already does
 * and nothing was downloaded here.
 */
export function speechPackOffer(availability: OnDeviceAvailability, download: SpeechPackDownload, languageName: string, say: PageSay): SpeechPackOffer | null {
  const language = { language: languageName };
  if (download === 'installed') return { sentence: say('page-hearing.pack-installed', language), button: null };
  if (download === 'installing' || availability === 'downloading') return { sentence: say('page-hearing.pack-downloading', language), button: null };
  if (download === 'failed') return { sentence: say('page-hearing.pack-failed', language), button: say('page-hearing.pack-retry') };
  if (availability === 'downloadable') return { sentence: say('page-hearing.pack-offered', language), button: say('page-hearing.pack-download') };
  return null;
}

/** What the browser said, as one of the four; anything else (a browser that said something new) is `unavailable`. */
export function onDeviceAvailability(said: unknown): OnDeviceAvailability {
  return ON_DEVICE_AVAILABILITIES.find((known) => known === said) ?? 'unavailable';
}
