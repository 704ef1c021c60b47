/**
 * Speakers for a Firefox on a machine that has none. Firefox's AudioContext runs only once an audio
 * server gives it an output — with none it stays "suspended" at time 0, and the page waits for an
 * answer to be heard forever — while Chromium fakes one of its own. So a private PulseAudio with a
 * null sink (it plays to nothing), on a socket in a folder of its own; Firefox is pointed at it
 * with `PULSE_SERVER`, and no other program is.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long PulseAudio may take to open its socket, in ms. */
const START_PATIENCE_MS = 10_000;
const POLL_MS = 50;

export interface NullSpeakers {
  /** What `PULSE_SERVER` is set to for the browser. */
  pulseServer: string;
  /** Stops PulseAudio and removes its folder. */
  close: () => Promise<void>;
}

export async function startNullSpeakers(): Promise<NullSpeakers> {
  const folder = mkdtempSync(join(tmpdir(), 'confab-pulse-'));
  const socket = join(folder, 'native');
  // -n: none of the machine's own config (no device detection, no D-Bus); only these two modules.
  const child = spawn(
    'pulseaudio',
    ['-n', '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no', '--log-target=stderr', '--log-level=error', '-L', 'module-null-sink', '-L', `module-native-protocol-unix socket=${socket} auth-anonymous=1`],
    // Its runtime files and cookie in the folder, never the user's.
    { env: { ...process.env, HOME: folder, XDG_RUNTIME_DIR: folder, XDG_CONFIG_HOME: folder }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const gone = new Promise<void>((done) => {
    child.once('exit', () => {
      done();
    });
    // Not there at all (ENOENT): it never started, and no exit follows.
    child.once('error', () => {
      done();
    });
  });
  const started = () => child.pid !== undefined;
  const close = async () => {
    if (started() && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await gone;
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_PATIENCE_MS;
  while (!existsSync(socket)) {
    if (!started() || child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error('PulseAudio did not open its socket: install it with `apt-get install -y pulseaudio` (as root, or with sudo).');
    }
    await new Promise((wait) => setTimeout(wait, POLL_MS));
  }
  return { pulseServer: `unix:${socket}`, close };
}
