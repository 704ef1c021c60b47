import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INSTALL_LINE, missing, sentenceFor } from '../preflight';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder of stand-in executables named `commands`. */
function bin(...commands: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'confab-preflight-'));
  made.push(dir);
  mkdirSync(dir, { recursive: true });
  for (const command of commands) writeFileSync(join(dir, command), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

describe('the tests’ preflight', () => {
  it('asks for Chromium, Firefox ESR and PulseAudio always, and for espeak-ng and sox only when the speech clips must be made again', () => {
    const tools = bin('chromium', 'firefox-esr', 'pulseaudio', 'espeak-ng', 'sox');
    const env = { PATH: tools, CHROMIUM_PATH: join(tools, 'chromium'), FIREFOX_PATH: join(tools, 'firefox-esr') };
    expect(missing(env, () => true)).toEqual([]);
    expect(missing(env, () => false)).toEqual([]);

    const none = bin();
    const bare = { PATH: none, CHROMIUM_PATH: join(none, 'chromium'), FIREFOX_PATH: join(none, 'firefox-esr') };
    const browsers = [`Chromium at ${join(none, 'chromium')}`, `Firefox ESR at ${join(none, 'firefox-esr')}`, 'pulseaudio (Firefox’s speakers)'];
    expect(missing(bare, () => true)).toEqual(browsers);
    expect(missing(bare, () => false)).toEqual([
      ...browsers,
      'espeak-ng (to make the test speech clips again)',
      'sox (to make the test speech clips again)',
    ]);
  });

  it('names the one line that installs them', () => {
    expect(INSTALL_LINE).toBe('apt-get install -y chromium firefox-esr pulseaudio espeak-ng sox');
    expect(sentenceFor(['Chromium at /usr/bin/chromium'])).toContain('\n\n  apt-get install -y chromium firefox-esr pulseaudio espeak-ng sox\n\n');
  });

  it('finds the kept speech clips usable as committed', async () => {
    const { clipsProblem } = await import('../e2e/speech/bargeInSpeech');
    expect(clipsProblem()).toBeNull();
  });
});
