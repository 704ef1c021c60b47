import { describe, expect, it } from 'vitest';
import { deviceLabel, deviceSeen } from '../../../server/people/deviceLabel';
import { linkCodeRead, linkCodeShown, newLinkCode } from '../../../server/people/secrets';
import { shippedWords } from '../../../server/words/loadWords';
import { english } from '../../helpers/words';

const AGENTS = {
  chromeLinux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  headless: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  chromeIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0',
  edgeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
  samsung: 'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
  chromebook: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
} as const;

describe('a device’s label', () => {
  it('names the browser and the system as a person would', () => {
    expect(Object.fromEntries(Object.entries(AGENTS).map(([name, agent]) => [name, deviceLabel(english, agent)]))).toEqual({
      chromeLinux: 'Chrome on Linux',
      headless: 'Chrome on Linux',
      chromeAndroid: 'Chrome on Android',
      safariIphone: 'Safari on iPhone',
      chromeIphone: 'Chrome on iPhone',
      safariMac: 'Safari on macOS',
      firefoxWindows: 'Firefox on Windows',
      edgeWindows: 'Edge on Windows',
      samsung: 'Samsung Internet on Android',
      chromebook: 'Chrome on ChromeOS',
    });
  });

  it('says what it can when the User-Agent names less, in the request’s language', () => {
    expect(deviceSeen(undefined)).toEqual({ browser: undefined, system: undefined });
    expect(deviceLabel(english, undefined)).toBe('A browser');
    expect(deviceLabel(english, 'curl/8.5.0')).toBe('A browser');
    expect(deviceLabel(english, 'Something (Android 14)')).toBe('A browser on Android');
    expect(deviceLabel(english, 'Firefox/127.0')).toBe('Firefox');
    expect(deviceLabel(shippedWords().wordsIn('fr'), AGENTS.chromeLinux)).toBe('Chrome sur Linux');
  });
});

describe('a link code', () => {
  it('is eight characters with no look-alikes, shown in two fours, and read back however it is typed', () => {
    const code = newLinkCode();
    expect(code).toMatch(/^[2-9A-HJ-NP-Z]{8}$/);
    expect(linkCodeShown('ABCDEFGH')).toBe('ABCD-EFGH');
    expect(linkCodeRead('abcd-efgh')).toBe('ABCDEFGH');
    expect(linkCodeRead(' ABCD EFGH ')).toBe('ABCDEFGH');
    expect(linkCodeRead('ABCD-EFG0')).toBeUndefined();
    expect(linkCodeRead('ABCD-EFGHJ')).toBeUndefined();
  });
});
