import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('"give me a second"', () => {
  it('as a whole turn, is not answered: nothing is asked, kept or said, and it waits listening', () => {
    const c = conversation().clearEffects().user('Hold on.');
    expect(c.streams).toHaveLength(0);
    expect(c.count('saveLine')).toBe(0);
    expect(c.spoken).toEqual([]);
    expect(c.turn).toBe('listening');
    expect(c.recogniserOn).toBe(true);
    expect(c.context.waiting).toBe(true);
    expect(c.context.liveLine).toBe('');
  });

  it('makes what is said next the turn, and that is answered', () => {
    const c = conversation().user('Give me a second.').hears('what about').user('What about Tuesday?');
    expect(c.context.waiting).toBe(false);
    expect(c.turn).toBe('thinking');
    expect(c.stream.request.messages).toEqual([{ role: 'user', content: 'What about Tuesday?' }]);
  });

  it('said over an answer, stops it as talking over it does, and waits without asking anything', () => {
    const c = conversation().user('Tell me a story.').streamWords('Once upon a time there was a fox. ').starts(0).clearEffects().user('Wait, hold on.');
    expect(c.stream.aborted).toBe(true);
    expect(c.count('stopAudio')).toBe(1);
    expect(c.streams).toHaveLength(1);
    expect(c.turn).toBe('listening');
    expect(c.context.waiting).toBe(true);
    expect(c.context.lines.at(-1)).toMatchObject({ role: 'assistant', interrupted: true });
  });

  it('is heard in the person’s language', () => {
    const c = conversation({ language: 'de' }).user('Einen Moment, bitte.');
    expect(c.streams).toHaveLength(0);
    expect(c.context.waiting).toBe(true);
  });

  it('with more in it is a question like any other', () => {
    const c = conversation().user('Hold on, what time is it?');
    expect(c.streams).toHaveLength(1);
    expect(c.context.waiting).toBe(false);
  });

  it('holds back what the bot would say of its own accord until the person goes on', () => {
    const c = conversation().user('One moment.').announces('Your reminder is due.');
    expect(c.turn).toBe('listening');
    expect(c.spoken).toEqual([]);
    c.user('Okay, go on.');
    expect(c.turn).toBe('thinking');
  });
});
