/**
 * The voice activity worker's frames (newestFirst.ts): in order while the model keeps up; the
 * newest, with the model started afresh, when it has fallen behind.
 */
import { describe, expect, it } from 'vitest';
import { newestFirst } from '../../workers/newestFirst';

function setUp() {
  const heard: number[] = [];
  const log: string[] = [];
  const pending: (() => void)[] = [];
  const push = newestFirst<number>(
    (frame) =>
      new Promise<void>((resolve) => {
        heard.push(frame);
        log.push(`hear ${String(frame)}`);
        pending.push(resolve);
      }),
    () => log.push('restart'),
  );
  /** The model finishes the frame it is on. */
  const finish = async () => {
    pending.shift()?.();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { push, heard, log, finish };
}

describe('frames for a model that may fall behind', () => {
  it('hears every frame, in order, while it keeps up', async () => {
    const t = setUp();
    for (const frame of [1, 2, 3]) {
      t.push(frame);
      await t.finish();
    }
    expect(t.log).toEqual(['hear 1', 'hear 2', 'hear 3']);
  });

  it('hears the newest frame once it is free, and starts the model afresh from it', async () => {
    const t = setUp();
    t.push(1);
    // A backlog arrives while frame 1 is heard (the model loading, a busy machine).
    for (const frame of [2, 3, 4, 5]) t.push(frame);
    await t.finish();
    await t.finish();
    expect(t.log).toEqual(['hear 1', 'restart', 'hear 5']);
    // Keeping up again: in order, no restart.
    t.push(6);
    await t.finish();
    expect(t.log.slice(3)).toEqual(['hear 6']);
  });

  it('keeps one frame waiting without a restart: the model is only a frame behind', async () => {
    const t = setUp();
    t.push(1);
    t.push(2);
    await t.finish();
    await t.finish();
    expect(t.log).toEqual(['hear 1', 'hear 2']);
  });
});
