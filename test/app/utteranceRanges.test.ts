import { describe, expect, it } from 'vitest';
import type { SpeakerFailure } from '../../src/app/createConversation';
import { soundIn, utteranceRanges } from '../../src/app/utteranceRanges';
import type { PageSound } from '../../src/app/utteranceRanges';

function pageSound() {
  const spoken: number[] = [];
  const cancelled: number[] = [];
  const failures = new Set<(failure: SpeakerFailure) => void>();
  const started = new Set<(key: { utteranceId: number; piece: number }) => void>();
  const sound: PageSound = {
    speak: (request) => spoken.push(request.utteranceId),
    cancel: (utteranceId) => cancelled.push(utteranceId),
    onFailed: (listener) => {
      failures.add(listener);
      return () => failures.delete(listener);
    },
    onPaced: () => () => undefined,
    stop: () => undefined,
    duck: () => undefined,
    on: (_event, listener) => {
      started.add(listener);
      return () => started.delete(listener);
    },
  };
  return { sound, spoken, cancelled, failures, started };
}

describe('utterance ranges', () => {
  it('gives each conversation ids of its own on the way out and lets only its own back in', () => {
    const next = utteranceRanges(100);
    const first = next();
    const second = next();
    expect(first.outward(1)).toBe(101);
    expect(second.outward(1)).toBe(201);
    expect(first.inward(101)).toBe(1);
    expect(first.inward(201)).toBeNull();
    expect(second.inward(201)).toBe(1);
    expect(second.inward(200)).toBeNull();
  });

  it('shifts what a conversation speaks and cancels, and hears only its own pieces and failures', () => {
    const page = pageSound();
    const next = utteranceRanges(100);
    const older = soundIn(next(), page.sound);
    const newer = soundIn(next(), page.sound);
    newer.speaker.speak({ utteranceId: 3, piece: 0, text: 'Hi.', voice: 'device', steps: 8, floor: 4 });
    newer.speaker.cancel(3);
    expect(page.spoken).toEqual([203]);
    expect(page.cancelled).toEqual([203]);
    const heardByOlder: number[] = [];
    const heardByNewer: number[] = [];
    older.player.on('started', (key) => heardByOlder.push(key.utteranceId));
    newer.player.on('started', (key) => heardByNewer.push(key.utteranceId));
    for (const listener of page.started) listener({ utteranceId: 203, piece: 0 });
    expect(heardByNewer).toEqual([3]);
    expect(heardByOlder).toEqual([]);
    const failed: number[] = [];
    newer.speaker.onFailed((failure) => failed.push(failure.utteranceId));
    for (const listener of page.failures) listener({ utteranceId: 103, piece: 0, voice: 'device', reason: 'x' });
    for (const listener of page.failures) listener({ utteranceId: 204, piece: 0, voice: 'device', reason: 'x' });
    expect(failed).toEqual([4]);
  });
});
