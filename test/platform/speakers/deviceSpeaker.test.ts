import { describe, expect, it } from 'vitest';
import { observeCost, paceAfter, paceOf, SAFE_COST } from '../../../common/speaking/pace';
import type { Pace, VoiceCost } from '../../../common/speaking/pace';
import { createDeviceSpeaker } from '../../../src/platform/speakers/deviceSpeaker';
import type { DeviceSpeakerDeps } from '../../../src/platform/speakers/deviceSpeaker';
import type { SpeakerFailure } from '../../../src/platform/speakers/speaker';
import type { Asked } from './fakes';
import { fakeTts, piece, RecordingPlayer, settle, timingOf } from './fakes';

function speaker(more: Partial<DeviceSpeakerDeps> = {}) {
  const player = new RecordingPlayer();
  const worker = fakeTts();
  const failures: SpeakerFailure[] = [];
  const device = createDeviceSpeaker({ tts: worker.tts, player, voice: () => ({ name: 'F2', lang: 'fr', speed: 1.2 }), ...more });
  device.onFailed((failure) => failures.push(failure));
  return { device, player, worker, failures };
}

function askedAt(asked: readonly Asked[], index: number): Asked {
  const one = asked[index];
  if (one === undefined) throw new Error(`Only ${asked.length} pieces were asked of the worker; expected one at ${index}.`);
  return one;
}

describe('the device speaker', () => {
  it('asks the worker for each piece with the reader’s voice, the request’s steps and floor, the gap and the device’s cost', async () => {
    const { device, worker } = speaker();
    device.speak(piece(1, 0, 'device', 'Hello there.'));
    await settle();
    expect(worker.asked.map((one) => one.request)).toEqual([
      { utteranceId: 1, piece: 0, text: 'Hello there.', steps: 4, voice: 'F2', lang: 'fr', speed: 1.2, pacing: { floor: 4, gapMs: 120, cost: SAFE_COST } },
    ]);
  });

  it('hands each piece to the player the moment it is made, as float PCM at its rate', async () => {
    const { device, player, worker } = speaker();
    device.speak(piece(1, 0, 'device'));
    await settle();
    askedAt(worker.asked, 0).finish(3, 0.5);
    await settle();
    expect(player.calls).toEqual([
      { kind: 'open', key: { utteranceId: 1, piece: 0 }, rateHz: 44_100 },
      { kind: 'write', key: { utteranceId: 1, piece: 0 }, samples: Float32Array.of(0.5, 0.5, 0.5) },
      { kind: 'end', key: { utteranceId: 1, piece: 0 } },
    ]);
  });

  it('keeps the order of the pieces when a later one is made first', async () => {
    const { device, player, worker } = speaker();
    for (const index of [0, 1, 2]) device.speak(piece(1, index, 'device'));
    await settle();
    askedAt(worker.asked, 1).finish();
    await settle();
    expect(player.opened()).toEqual([]);
    askedAt(worker.asked, 0).finish();
    await settle();
    expect(player.opened()).toEqual(['1:0', '1:1']);
    askedAt(worker.asked, 2).finish();
    await settle();
    expect(player.opened()).toEqual(['1:0', '1:1', '1:2']);
  });

  it('makes the next piece while one plays, but never asks for the whole answer at once', async () => {
    const { device, worker } = speaker();
    for (const index of [0, 1, 2, 3]) device.speak(piece(1, index, 'device'));
    await settle();
    expect(worker.asked.map((one) => one.request.piece)).toEqual([0, 1]);

    // A piece made out of order does not let more be asked: the bound is on pieces not yet played.
    askedAt(worker.asked, 1).finish();
    await settle();
    expect(worker.asked.map((one) => one.request.piece)).toEqual([0, 1]);

    askedAt(worker.asked, 0).finish();
    await settle();
    expect(worker.asked.map((one) => one.request.piece)).toEqual([0, 1, 2, 3]);
  });

  it('drops the queued pieces of a cancelled utterance, cancels it in the worker and throws away what it still sends', async () => {
    const { device, player, worker, failures } = speaker();
    for (const index of [0, 1, 2]) device.speak(piece(1, index, 'device'));
    await settle();
    device.cancel(1);
    expect(worker.cancelled).toEqual([1]);
    askedAt(worker.asked, 0).finish();
    askedAt(worker.asked, 1).made.resolve(null);
    await settle();
    expect(player.calls).toEqual([]);
    expect(worker.asked.map((one) => one.request.piece)).toEqual([0, 1]);
    expect(failures).toEqual([]);

    device.speak(piece(2, 0, 'device'));
    await settle();
    askedAt(worker.asked, 2).finish();
    await settle();
    expect(player.opened()).toEqual(['2:0']);
  });

  it('reports a piece the worker could not make, and still plays the pieces after it', async () => {
    const { device, player, worker, failures } = speaker();
    for (const index of [0, 1]) device.speak(piece(1, index, 'device'));
    await settle();
    askedAt(worker.asked, 0).made.reject(new Error('session lost'));
    askedAt(worker.asked, 1).finish();
    await settle();
    expect(failures).toMatchObject([{ utteranceId: 1, piece: 0, voice: 'device', error: { name: 'DeviceVoiceError' } }]);
    expect(failures[0]?.reason).toMatch(/could not say part of the answer/);
    expect(player.opened()).toEqual(['1:1']);
  });

  it('reports a piece the worker dropped without being told to, so the turn does not wait for it forever', async () => {
    const { device, worker, failures } = speaker();
    device.speak(piece(1, 0, 'device'));
    await settle();
    askedAt(worker.asked, 0).made.resolve(null);
    await settle();
    expect(failures).toMatchObject([{ utteranceId: 1, piece: 0, voice: 'device' }]);
  });

  it('asks nothing of the worker until a piece is asked of it', async () => {
    const { device, worker } = speaker();
    device.cancel(1);
    await settle();
    expect(worker.asked).toEqual([]);
    expect(worker.cancelled).toEqual([]);
  });

  describe('its pace', () => {
    /** A clock the test moves, and a speaker whose pace is heard. */
    function paced(cost: VoiceCost = SAFE_COST) {
      let clockMs = 1000;
      const made = speaker({ nowMs: () => clockMs, cost });
      const paces: Pace[] = [];
      made.device.onPace((pace) => paces.push(pace));
      return { ...made, paces, at: (ms: number) => (clockMs = ms) };
    }

    it('reports each piece asked as one more to make, ready and played as its estimated cost says', async () => {
      const { device, paces } = paced();
      device.speak(piece(1, 0, 'device', 'Hello there.'));
      await settle();
      const expected = paceAfter({ atMs: 1000, busyUntilMs: 1000, playsUntilMs: 0, making: 0, gapMs: 120, speed: 1.2, cost: SAFE_COST }, 12, 4, 1000, 1000);
      expect(paces.at(-1)).toEqual(expected);
      expect(device.pace()).toEqual(expected);
    });

    it('learns what the device costs from each piece made, asks the next pieces with it, and reports the audio queued', async () => {
      const { device, worker, paces, at } = paced();
      device.speak(piece(1, 0, 'device', 'Hello there.'));
      device.speak(piece(1, 1, 'device', 'And more.'));
      device.speak(piece(1, 2, 'device', 'And the rest.'));
      await settle();
      at(1500);
      askedAt(worker.asked, 0).finish(44_100);
      await settle();
      const timing = timingOf(askedAt(worker.asked, 0).request, 44_100);
      const learned = observeCost(SAFE_COST, timing);
      expect(paces.at(-1)?.cost).toEqual(learned);
      // Piece 0 plays from 1500 to 2500; piece 1 has been made since then, and piece 2 comes after it.
      expect(paces.at(-1)).toEqual(
        paceOf({
          atMs: 1500,
          playsUntilMs: 2500,
          making: [
            { chars: 9, steps: 8, sinceMs: 1500 },
            { chars: 13, steps: 8 },
          ],
          gapMs: 120,
          speed: 1.2,
          cost: learned,
        }),
      );
      expect(askedAt(worker.asked, 2).request.pacing?.cost).toEqual(learned);
    });

    it('counts the audio of a cancelled utterance no more, since it is stopped with it', async () => {
      const { device, worker, at } = paced();
      device.speak(piece(1, 0, 'device', 'Hello there.'));
      await settle();
      askedAt(worker.asked, 0).finish(44_100);
      await settle();
      expect(device.pace().playsUntilMs).toBe(2000);
      at(1200);
      device.cancel(1);
      expect(device.pace()).toMatchObject({ making: 0, playsUntilMs: 0, busyUntilMs: 1200 });
    });

    it('starts from the cost kept for this device', () => {
      const kept: VoiceCost = { ...SAFE_COST, stepMsPerS: 40, pieces: 9, provider: 'wasm' };
      expect(paced(kept).device.pace().cost).toBe(kept);
    });
  });

  it('refuses an aheadMax below one piece', () => {
    expect(() => speaker({ aheadMax: 0 })).toThrow('deviceSpeaker.aheadMax is 0; it must be a whole number, 1 or more.');
  });
});
