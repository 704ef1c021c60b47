import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('speech off', () => {
  it('writes the answer, synthesises nothing, and returns the turn when the answer ends', () => {
    const c = conversation({ speech: false }).user('Hi.').streamWords('Hello there. How are you today? ');
    expect(c.spoken).toEqual([]);
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: 'Hello there. How are you today?', utteranceId: 1 });
    expect(c.turn).toBe('thinking');
    c.answerDone();
    expect(c.turn).toBe('listening');
    expect(c.count('stopAudio')).toBe(0);
  });

  it('silences the current answer when speech is turned off mid-answer and keeps writing it', () => {
    const c = conversation().user('Hi.').streamWords('Hello there. How are ').starts(0).clearEffects();
    c.send({ type: 'settings.changed', speech: false });
    expect(c.effects.map((e) => e.type)).toEqual(['stopAudio', 'cancelUtterance', 'startRecogniser']);
    expect(c.turn).toBe('thinking');
    c.deltas('you today? ').answerDone();
    expect(c.spoken).toEqual([]);
    expect(c.context.lines.at(-1)?.text).toBe('Hello there. How are you today?');
    expect(c.turn).toBe('listening');
  });

  it('speaks again once speech is turned back on', () => {
    const c = conversation({ speech: false }).user('Hi.').bot('Hello.');
    c.send({ type: 'settings.changed', speech: true }).user('And again?').bot('Hello again.');
    expect(c.spoken).toEqual([{ utteranceId: 2, piece: 0, text: 'Hello again.', voice: 'device', steps: 8, floor: 8 }]);
  });
});
