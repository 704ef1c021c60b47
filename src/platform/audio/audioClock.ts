/**
 * The page's one clock: the AudioContext's, which the microphone's frames and the player's sources
 * are timed on, so yielding's rulings and the frames they weigh are on one scale. Before a gesture
 * has made the context nothing sounds and no frame comes, and it stands at 0. Its timers are the
 * window's.
 */
import type { Clock } from '../../core/clock';
import { existingAudioContext } from './audioContext';

export const audioClock: Clock = {
  now: () => (existingAudioContext()?.currentTime ?? 0) * 1000,
  setTimeout: (run, delayMs) => window.setTimeout(run, delayMs),
  clearTimeout: (id) => {
    window.clearTimeout(id as number);
  },
};
