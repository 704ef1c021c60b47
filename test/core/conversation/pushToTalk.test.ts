import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('push to talk', () => {
  it('runs the recogniser only while the control is held', () => {
    const c = conversation({ pushToTalk: true });
    expect(c.recogniserOn).toBe(false);
    c.press();
    expect(c.recogniserOn).toBe(true);
    c.release();
    expect(c.recogniserOn).toBe(false);
  });

  it('asks the question the recogniser delivers after release', () => {
    const c = conversation({ pushToTalk: true }).press().hears('what is').release();
    expect(c.recogniserOn).toBe(false);
    c.user('What is the time?');
    expect(c.turn).toBe('thinking');
    expect(c.recogniserOn).toBe(false);
  });

  it('interrupts the assistant and starts listening in the same press', () => {
    const c = conversation({ pushToTalk: true }).press().release().user('Tell me a story.');
    c.streamWords('Once upon a time. ').starts(0).clearEffects();
    c.press();
    expect(c.effects.map((e) => e.type)).toEqual(['stopAudio', 'cancelUtterance', 'saveLine', 'startRecogniser']);
    expect(c.stream.aborted).toBe(true);
    expect(c.turn).toBe('listening');
  });

  it('treats a press as an ordinary event when the microphone is open', () => {
    const c = conversation().user('Tell me a story.').streamWords('Once upon a time. ').starts(0);
    c.press();
    expect(c.turn).toBe('speaking');
    expect(c.context.talkHeld).toBe(false);
  });

  it('switches between open and held mid-conversation', () => {
    const c = conversation();
    c.send({ type: 'settings.changed', pushToTalk: true });
    expect(c.recogniserOn).toBe(false);
    c.press();
    c.send({ type: 'settings.changed', pushToTalk: false });
    expect(c.context.talkHeld).toBe(false);
    expect(c.recogniserOn).toBe(true);
  });
});
