import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

const GREETING = 'Hello, I am Sage. What shall we talk about today?';

describe('a greeting', () => {
  it('is shown at once and spoken piece by piece, and the turn returns once it has played', () => {
    const c = conversation().greets(GREETING);
    expect(c.turn).toBe('greeting');
    expect(c.context.lines).toEqual([{ role: 'assistant', text: GREETING, utteranceId: 1 }]);
    expect(c.spoken.map((s) => s.text)).toEqual(['Hello, I am Sage.', 'What shall we talk about today?']);
    expect(c.spoken[0]?.steps).toBe(8);
    c.starts(0).ends(0).starts(1);
    expect(c.turn).toBe('greeting');
    c.ends(1);
    expect(c.turn).toBe('listening');
    expect(c.effects).toContainEqual({ type: 'saveLine', params: { role: 'assistant', text: GREETING, utteranceId: 1 } });
  });

  it('lets the person be heard until it makes a sound, and not while it is audible', () => {
    const c = conversation().greets(GREETING);
    expect(c.recogniserOn).toBe(true);
    c.starts(0);
    expect(c.recogniserOn).toBe(false);
    c.ends(0).starts(1).ends(1);
    expect(c.recogniserOn).toBe(true);
  });

  it('is talked over like any answer: the audio stops, the utterance is cancelled, the line is marked', () => {
    const c = conversation().greets(GREETING).starts(0).interrupt();
    expect(c.turn).toBe('listening');
    expect(c.effects.map((e) => e.type)).toEqual(expect.arrayContaining(['stopAudio', 'cancelUtterance']));
    // Kept as what was heard of it.
    expect(c.context.lines).toEqual([{ role: 'assistant', text: 'Hello, I am Sage.', utteranceId: 1, interrupted: true }]);
  });

  it('gives way to a question said before it is heard, which is answered next', () => {
    const c = conversation().greets(GREETING).user('What time is it?');
    expect(c.turn).toBe('thinking');
    expect(c.stream.request.messages).toEqual([
      { role: 'assistant', content: GREETING },
      { role: 'user', content: 'What time is it?' },
    ]);
  });

  it('is only shown, not spoken, with speech off, and the turn returns at once', () => {
    const c = conversation({ speech: false }).greets(GREETING);
    expect(c.turn).toBe('listening');
    expect(c.spoken).toEqual([]);
    expect(c.context.lines).toHaveLength(1);
  });

  it('is never given to a conversation already under way', () => {
    const c = conversation().user('Hi.').bot('Hello.').plays().greets(GREETING);
    expect(c.turn).toBe('listening');
    expect(c.context.lines.map((l) => l.text)).toEqual(['Hi.', 'Hello.']);
    const reopened = conversation({ lines: [{ role: 'user', text: 'Hi.', utteranceId: 1 }] }).greets(GREETING);
    expect(reopened.turn).toBe('listening');
  });
});
