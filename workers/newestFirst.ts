/**
 * Frames heard one at a time, in order, but never behind: a frame still waiting when a newer one
 * comes is dropped, and the model starts afresh (`restart`) from the newer one, since its state no
 * longer runs from frame to frame. A model that fell behind — still loading when the microphone
 * opened, or starved on a busy machine — so says what is being said now, not what was said seconds
 * ago; the frames it never heard are a gap, which yielding reads as nothing said either way.
 */
export function newestFirst<Frame>(hear: (frame: Frame) => Promise<void>, restart: () => void): (frame: Frame) => void {
  let waiting: Frame | null = null;
  let skipped = false;
  let busy = false;
  const drain = async () => {
    busy = true;
    try {
      while (waiting !== null) {
        const frame = waiting;
        waiting = null;
        if (skipped) {
          skipped = false;
          restart();
        }
        await hear(frame);
      }
    } finally {
      busy = false;
    }
  };
  return (frame) => {
    if (waiting !== null) skipped = true;
    waiting = frame;
    if (!busy) void drain();
  };
}
