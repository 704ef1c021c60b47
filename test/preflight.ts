/**
 * The first step of `npm test` (and of `npm run test:e2e`): what the run will need from the
 * machine, checked before anything else runs, so a missing tool is one sentence at once rather
 * than a failure deep inside the browser tests. The browser tests drive Debian's Chromium, and its
 * Firefox ESR (test/firefox/) with a PulseAudio of their own for speakers; the barge-in tests'
 * speech is kept in test/e2e/speech/clips/, so espeak-ng and sox are needed only when those clips
 * must be made again (their recipe changed).
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clipsProblem } from './e2e/speech/bargeInSpeech';

/** The one line that installs everything the tests can ask of the machine (Debian, as root). */
export const INSTALL_LINE = 'apt-get install -y chromium firefox-esr pulseaudio espeak-ng sox';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

/** What this machine lacks for a run of the tests, each as a short phrase; empty when nothing. */
export function missing(env: NodeJS.ProcessEnv = process.env, clipsUsable: () => boolean = () => clipsProblem() === null): string[] {
  const lacks: string[] = [];
  const chromium = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!executable(chromium)) lacks.push(`Chromium at ${chromium}`);
  const firefox = env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
  if (!executable(firefox)) lacks.push(`Firefox ESR at ${firefox}`);
  if (!onPath('pulseaudio', env)) lacks.push('pulseaudio (Firefox’s speakers)');
  if (!clipsUsable()) {
    for (const tool of ['espeak-ng', 'sox']) if (!onPath(tool, env)) lacks.push(`${tool} (to make the test speech clips again)`);
  }
  return lacks;
}

/** The sentence for what `lacks`, naming the line that installs it. */
export function sentenceFor(lacks: readonly string[]): string {
  return `The tests cannot run on this machine: it lacks ${lacks.join(', ')}. Install them with\n\n  ${INSTALL_LINE}\n\n(as root, or with sudo), or set CHROMIUM_PATH or FIREFOX_PATH to a browser elsewhere.`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const lacks = missing();
  if (lacks.length > 0) {
    console.error(sentenceFor(lacks));
    process.exit(1);
  }
}
