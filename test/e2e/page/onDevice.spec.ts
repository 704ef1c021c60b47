/**
 * Recognition on this device, one viewport: where the browser says the page's language is heard
 * on the device, the disclosure says so and every session asks for it, with the bot's name as a
 * phrase to favour; where the pack is only downloadable, the disclosure says (as without these
 * APIs) that the browser's maker may receive the audio, the settings offer the download and say
 * how it went, and listening moves onto the device once it is done.
 */
import { ANSWER_PATIENCE_MS, expect, openVoice, orb, test } from './fixtures';

test.use({ viewport: { width: 1280, height: 800 }, phrases: true });

test.describe('where the pack is installed', () => {
  test.use({ onDevice: 'available' });

  test('says the words are heard on this device, and asks each session for that and for the bot’s name', async ({ page, speech }) => {
    await openVoice(page);
    const disclosure = page.getByTestId('disclosure');
    await expect(disclosure).toHaveAttribute('data-place', 'device');
    await expect(disclosure).toContainText('heard on this device');
    await expect(disclosure).not.toContainText('maker');
    expect((await speech.asked()).available).toEqual([{ langs: ['en-US'], processLocally: true }]);

    await page.getByTestId('start-listening').click();
    await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
    await speech.listening();
    const sessions = await speech.sessions();
    expect(sessions.length).toBeGreaterThan(0);
    for (const session of sessions) expect(session).toEqual({ lang: 'en-US', processLocally: true, phrases: ['Sage'] });
  });
});

test.describe('where the pack can be downloaded', () => {
  test.use({ onDevice: 'downloadable' });

  test('says the maker may hear, offers the pack in the settings, and listens on this device once it is in', async ({ page, speech }) => {
    await openVoice(page);
    await expect(page.getByTestId('disclosure')).toHaveAttribute('data-place', 'browser');
    await expect(page.getByTestId('disclosure')).toContainText('may send what you say to the browser’s maker');
    await page.getByTestId('start-listening').click();
    await speech.listening();
    // The server recogniser refused the phrases (as Chrome's does): the page listens on without them, saying nothing.
    await expect.poll(async () => (await speech.sessions()).slice(0, 2)).toEqual([
      { lang: 'en-US', processLocally: false, phrases: ['Sage'] },
      { lang: 'en-US', processLocally: false, phrases: [] },
    ]);
    await expect(page.getByTestId('problem')).toHaveCount(0);

    await page.getByTestId('open-settings').click();
    const status = page.getByTestId('speech-pack-status');
    await expect(status).toContainText('once it has downloaded a speech pack');
    // A download that fails says so, and what to do; the second goes through.
    await page.getByTestId('speech-pack-download').click();
    await expect(status).toContainText('Downloading the speech pack for English');
    await expect(page.getByTestId('speech-pack-download')).toHaveCount(0);
    await speech.finishDownload(false);
    await expect(status).toContainText('could not be downloaded. Check that you are online');
    await page.getByTestId('speech-pack-download').click();
    await expect(status).toContainText('Downloading the speech pack for English');
    await speech.finishDownload(true);
    await expect(status).toContainText('is installed: from now on, what you say is heard on this device');
    expect((await speech.asked()).install).toEqual([
      { langs: ['en-US'], processLocally: true },
      { langs: ['en-US'], processLocally: true },
    ]);
    // Listening carries on, now on this device, the bot's name favoured again.
    await expect.poll(async () => (await speech.sessions()).at(-1)).toEqual({ lang: 'en-US', processLocally: true, phrases: ['Sage'] });
    await speech.listening();
  });
});
