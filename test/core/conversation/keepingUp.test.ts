import { describe, expect, it } from 'vitest';
import { budgetChars, paceAfter, PIECES_AHEAD } from '../../../common/speaking/pace';
import type { Pace, VoiceCost } from '../../../common/speaking/pace';
import { conversation } from '../../helpers/conversation';

/** A device making speech at half real time at 8 steps, speaking 70 ms a character at speed 1. */
const HALF: VoiceCost = { prepareMsPerS: 20, stepMsPerS: 50, vocodeMsPerS: 80, audioMsPerChar: 70, pieces: 12, provider: 'wasm' };

const ANSWER =
  'Sure, here is the plan for tomorrow. We meet at nine by the river, right next to the old stone bridge. ' +
  'Bring some water, a light jacket and a small snack for the walk. I will send you the map and the bus times tonight. ' +
  'The path is flat for the first hour. There is a bench at the top where we can rest.';

/** The device voice with nothing to make and nothing queued, at `atMs`. */
function idle(atMs: number): Pace {
  return { atMs, busyUntilMs: atMs, playsUntilMs: 0, making: 0, gapMs: 120, speed: 1.05, cost: HALF };
}

/** The pace a device speaker would report for the pieces asked so far, the first `made` of them made at `atMs`. */
function reported(texts: readonly string[], made: number, atMs: number): Pace {
  let pace = idle(atMs);
  for (const text of texts.slice(0, made)) pace = { ...pace, playsUntilMs: Math.max(pace.playsUntilMs + 120, atMs) + (text.length * 70) / 1.05 };
  for (const text of texts.slice(made)) pace = paceAfter(pace, text.length, 8, atMs);
  return pace;
}

describe('keeping up with the on-device voice', () => {
  it('gives a paced voice the opening and one piece ahead, the piece no longer than it can make before the opening has played', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER);
    const texts = c.spoken.map((request) => request.text);
    expect(texts).toHaveLength(PIECES_AHEAD);
    expect(texts[0]).toBe('Sure, here is the plan for tomorrow.');
    const budget = budgetChars(paceAfter(idle(1000), texts[0]?.length ?? 0, 8, 1000), 8, 1000);
    expect(texts[1]?.length).toBeLessThanOrEqual(budget);
    expect(ANSWER.startsWith(texts.join(' '))).toBe(true);
  });

  it('cuts the next piece when the voice says it has made one, bigger as more audio is queued', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER);
    const first = c.spoken.map((request) => request.text);
    c.send({ type: 'voice.paced', pace: reported(first, 1, 2000) });
    const texts = c.spoken.map((request) => request.text);
    expect(texts).toHaveLength(3);
    expect(texts[2]?.length).toBeGreaterThan(texts[1]?.length ?? Infinity);
    expect(c.spoken.map((request) => request.piece)).toEqual([0, 1, 2]);
  });

  it('asks every later piece with the bot’s floor', () => {
    const c = conversation({ talk: { steps: 10, floor: 3 } }).send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER);
    expect(c.spoken.map((request) => [request.steps, request.floor])).toEqual([
      [10, 3],
      [10, 3],
    ]);
  });

  it('returns the turn only once every sentence it held has been cut and played', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER);
    for (let atMs = 2000; c.turn !== 'listening'; atMs += 1000) {
      c.plays();
      expect(atMs).toBeLessThan(20_000);
      c.send({ type: 'voice.paced', pace: idle(atMs) });
    }
    expect(c.spoken.map((request) => request.text).join(' ')).toBe(ANSWER);
    expect(c.context.lines.at(-1)).toMatchObject({ role: 'assistant', text: ANSWER });
  });

  it('cuts a single phrase when the text comes after the audio before it has played out', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').deltas('Sure, here is the plan for tomorrow. ');
    c.send({ type: 'voice.paced', pace: reported(['Sure, here is the plan for tomorrow.'], 1, 1500) });
    c.send({ type: 'answer.delta', utteranceId: c.utteranceId, text: 'We meet at nine by the river, right next to the old stone bridge. More', atMs: 60_000 });
    expect(c.spoken.map((request) => request.text).slice(0, 2)).toEqual(['Sure, here is the plan for tomorrow.', 'We meet at nine by the river,']);
  });

  it('packs pieces as they come for the endpoint voice, whatever the device says of its pace', () => {
    const c = conversation({ voice: 'endpoint' }).send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER);
    expect(c.spoken.map((request) => request.text)).toEqual([
      'Sure, here is the plan for tomorrow.',
      'We meet at nine by the river, right next to the old stone bridge. Bring some water, a light jacket and a small snack for the walk. I will send you the map and the bus times tonight. The path is flat for the first hour. There is a bench at the top where we can rest.',
    ]);
  });

  it('packs pieces as they come until the device voice has said its pace', () => {
    const c = conversation();
    c.user('What is the plan?').bot(ANSWER);
    expect(c.spoken.map((request) => request.text.length)).toEqual([36, 265]);
  });

  it('says nothing more of what it held once talked over', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER).starts(0).interrupt();
    c.clearEffects().send({ type: 'voice.paced', pace: idle(3000) });
    expect(c.spoken).toEqual([]);
    expect(c.turn).toBe('listening');
  });

  it('drops what it held when speech is turned off, and the turn returns', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.user('What is the plan?').bot(ANSWER).starts(0);
    c.send({ type: 'settings.changed', speech: false });
    c.clearEffects().send({ type: 'voice.paced', pace: idle(3000) });
    expect(c.spoken).toEqual([]);
    expect(c.turn).toBe('listening');
  });

  it('cuts a greeting the same way', () => {
    const c = conversation().send({ type: 'voice.paced', pace: idle(1000) });
    c.greets(ANSWER);
    expect(c.spoken).toHaveLength(PIECES_AHEAD);
    expect(c.turn).toBe('greeting');
  });
});
