/**
 * What a person calls a device, read from its User-Agent: "Chrome on Linux", "Safari on iPhone". The
 * browser's and the system's names are their own in every language; the phrase around them is the
 * request's words. A User-Agent is the client's word, so this only ever names, never decides.
 */
import { say } from '../words/words';
import type { Words } from '../words/words';

/** The browser and system a User-Agent names, each undefined when it names none this knows. */
export interface DeviceSeen {
  browser: string | undefined;
  system: string | undefined;
}

/** First match wins: each browser's token is checked before those its User-Agent also carries (Edge says Chrome and Safari too). */
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrome\/|\bCriOS\/|HeadlessChrome\/|\bChromium\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
];
/** Android's User-Agent says Linux, and an iPhone's "like Mac OS X": they come first. */
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];
/** Longest label kept, in characters (the tables' check). */
const LABEL_MAX_CHARS = 80;

export function deviceSeen(userAgent: string | undefined): DeviceSeen {
  const named = (table: readonly (readonly [RegExp, string])[]) => table.find(([pattern]) => pattern.test(userAgent ?? ''))?.[1];
  return { browser: named(BROWSERS), system: named(SYSTEMS) };
}

/** The device's label in `words`: "Chrome on Linux", "Firefox", "A browser on Android", "A browser". */
export function deviceLabel(words: Words, userAgent: string | undefined): string {
  const { browser, system } = deviceSeen(userAgent);
  const label =
    browser !== undefined && system !== undefined
      ? say(words, 'devices.label', { browser, system })
      : browser ?? (system !== undefined ? say(words, 'devices.label-system', { system }) : say(words, 'devices.label-unknown'));
  return label.slice(0, LABEL_MAX_CHARS);
}
