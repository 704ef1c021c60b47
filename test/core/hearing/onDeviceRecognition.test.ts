import { describe, expect, it } from 'vitest';
import { ON_DEVICE_AVAILABILITIES, disclosureWords, onDeviceAvailability, recognitionPlace, speechPackOffer } from '../../../src/core/hearing/onDeviceRecognition';
import { englishSay } from '../../helpers/pageWords';

describe('where speech is turned into words', () => {
  it('is this device only once the browser says its pack is available', () => {
    expect(ON_DEVICE_AVAILABILITIES.map(recognitionPlace)).toEqual(['device', 'browser', 'browser', 'browser']);
    expect(onDeviceAvailability('downloadable')).toBe('downloadable');
    expect(onDeviceAvailability('readily')).toBe('unavailable');
    expect(onDeviceAvailability(true)).toBe('unavailable');
  });

  it('is told as heard on this device there, and elsewhere as today: the browser’s maker may receive it', () => {
    expect(disclosureWords('device', englishSay).full).toContain('heard on this device');
    expect(disclosureWords('device', englishSay).brief).toContain('on this device');
    expect(disclosureWords('device', englishSay).full).not.toContain('maker');
    expect(disclosureWords('browser', englishSay)).toEqual({
      full: 'Your browser turns speech into words with its own recogniser, which may send what you say to the browser’s maker (for Chrome, Google). You can type instead at any time.',
      brief: 'Your browser’s recogniser may send what you say to its maker (for Chrome, Google).',
    });
  });
});

describe('the speech pack offered in the settings', () => {
  it('offers the download only where the pack is missing but can be had', () => {
    expect(speechPackOffer('downloadable', 'idle', 'English', englishSay)).toEqual({ sentence: expect.stringContaining('English on this device') as string, button: 'Download the speech pack' });
    expect(speechPackOffer('unavailable', 'idle', 'English', englishSay)).toBeNull();
    expect(speechPackOffer('available', 'idle', 'English', englishSay)).toBeNull();
  });

  it('says while it downloads that the maker may still hear, and after, whether it worked and what to do', () => {
    for (const [availability, download] of [['downloadable', 'installing'], ['downloading', 'idle']] as const) {
      expect(speechPackOffer(availability, download, 'French', englishSay)).toEqual({ sentence: expect.stringMatching(/^Downloading the speech pack for French\..*may still send/) as string, button: null });
    }
    expect(speechPackOffer('available', 'installed', 'French', englishSay)?.sentence).toMatch(/installed: from now on, what you say is heard on this device/);
    expect(speechPackOffer('downloadable', 'failed', 'French', englishSay)).toEqual({ sentence: expect.stringMatching(/could not be downloaded\. Check that you are online .*then try again/) as string, button: 'Try the download again' });
  });
});
