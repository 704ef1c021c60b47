import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('barge-in', () => {
  it('stops playback, cancels the utterance and drops the pending answer when the person speaks over it', () => {
    const c = conversation().user('Tell me a story.').clearEffects().interruptAfter('Once upon a time there was a fox. ');
    expect(c.effects.slice(-4).map((e) => e.type)).toEqual(
      expect.arrayContaining(['stopAudio', 'cancelUtterance', 'startRecogniser']),
    );
    expect(c.effects).toContainEqual({ type: 'cancelUtterance', params: { utteranceId: 1 } });
    expect(c.stream.aborted).toBe(true);
    expect(c.turn).toBe('listening');
    expect(c.recogniserOn).toBe(true);
  });

  it('drops the pending answer while thinking, with nothing to silence', () => {
    const c = conversation().user('Tell me a story.').clearEffects().interrupt();
    expect(c.stream.aborted).toBe(true);
    expect(c.count('stopAudio')).toBe(0);
    expect(c.effects).toContainEqual({ type: 'cancelUtterance', params: { utteranceId: 1 } });
    expect(c.turn).toBe('listening');
    expect(c.recogniserOn).toBe(true);
  });

  it('takes the person continuing to talk while it thinks as barge-in, showing their words', () => {
    const c = conversation().user('What is the weather').hears('in Paris tomorrow');
    expect(c.stream.aborted).toBe(true);
    expect(c.turn).toBe('listening');
    expect(c.context.liveLine).toBe('in Paris tomorrow');
    expect(c.context.lines).toEqual([{ role: 'user', text: 'What is the weather', utteranceId: 1 }]);
  });

  it('keeps the interrupted question and the part of the answer already written, marked interrupted', () => {
    const c = conversation().user('Tell me a story.').interruptAfter('Once upon a time. ');
    expect(c.context.lines).toEqual([
      { role: 'user', text: 'Tell me a story.', utteranceId: 1 },
      { role: 'assistant', text: 'Once upon a time.', utteranceId: 1, interrupted: true },
    ]);
    expect(c.effects).toContainEqual({
      type: 'saveLine',
      params: { role: 'assistant', text: 'Once upon a time.', utteranceId: 1, interrupted: true },
    });
  });

  it('ignores answer deltas and audio that arrive for the cancelled utterance', () => {
    const c = conversation().user('Tell me a story.').interruptAfter('Once upon a time. ');
    const lines = c.context.lines;
    c.clearEffects()
      .send({ type: 'answer.delta', utteranceId: 1, text: 'There was a fox. ' })
      .send({ type: 'audio.started', utteranceId: 1, piece: 1 })
      .send({ type: 'answer.done', utteranceId: 1 });
    expect(c.effects).toEqual([]);
    expect(c.context.lines).toEqual(lines);
    expect(c.turn).toBe('listening');
  });

  it('lets the last utterance win when a new question arrives mid-answer', () => {
    const c = conversation().user('Tell me a story.').streamWords('Once upon a time. ').starts(0);
    c.types('Actually, what time is it?');
    expect(c.streams[0]?.aborted).toBe(true);
    expect(c.effects).toContainEqual({ type: 'cancelUtterance', params: { utteranceId: 1 } });
    expect(c.utteranceId).toBe(2);
    expect(c.turn).toBe('thinking');
    expect(c.stream.aborted).toBe(false);
    c.send({ type: 'answer.delta', utteranceId: 1, text: 'There was a fox. ' });
    expect(c.context.answer).toBe('');
    c.bot('It is noon.');
    expect(c.spoken.at(-1)).toMatchObject({ utteranceId: 2, piece: 0, text: 'It is noon.' });
  });

  it('ignores the interruption signal when nothing is being said', () => {
    const c = conversation().clearEffects().interrupt();
    expect(c.effects).toEqual([]);
    expect(c.turn).toBe('listening');
  });

  it('drops a final transcript that is the assistant’s own voice heard back', () => {
    const c = conversation().user('Hi.').bot('The museum opens at nine in the morning on weekdays.').plays();
    c.user('opens at nine in the morning on weekdays');
    expect(c.turn).toBe('listening');
    expect(c.streams).toHaveLength(1);
    expect(c.context.liveLine).toBe('');
  });

  it('still takes typed text that repeats what the assistant said', () => {
    const c = conversation().user('Hi.').bot('The museum opens at nine in the morning on weekdays.').plays();
    c.types('opens at nine in the morning on weekdays');
    expect(c.turn).toBe('thinking');
  });

  it('hears a person repeat what the assistant said before their last question', () => {
    const c = conversation().user('Hi.').bot('Clear your shopping list? Say yes or no.').plays();
    c.user('What is on it?').bot('Your shopping list has rice and beans.').plays();
    c.user('Clear my shopping list.');
    expect(c.streams).toHaveLength(3);
  });

  it('drops self-echo of the latest utterance even after the person has spoken', () => {
    const c = conversation().user('Hi.').bot('The museum opens at nine in the morning on weekdays.').plays();
    c.user('When does it close?');
    c.user('opens at nine in the morning on weekdays');
    expect(c.streams).toHaveLength(2);
  });

  it('drops self-echo of an interrupted utterance while still accepting the person', () => {
    const c = conversation().user('Hi.').interruptAfter('The museum opens at nine in the morning on weekdays. ');
    c.user('the museum opens at nine in the morning');
    expect(c.streams).toHaveLength(1);
    c.user('When does it close?');
    expect(c.streams).toHaveLength(2);
  });
});

describe('an interrupted answer as it is kept', () => {
  it('is what was heard of it: the pieces that began to sound, not the text that had arrived', () => {
    const c = conversation()
      .user('Tell me about the sea.')
      .bot('The sea is wide. It covers most of the planet and holds most of its life. Its deepest point is eleven kilometres down.');
    expect(c.spoken.map((s) => s.piece)).toEqual([0, 1]);
    c.starts(0).interrupt();
    const kept = c.effects.filter((e) => e.type === 'saveLine').at(-1);
    expect(kept).toEqual({ type: 'saveLine', params: { role: 'assistant', text: 'The sea is wide.', utteranceId: 1, interrupted: true } });
    expect(c.context.lines.at(-1)?.text).toBe('The sea is wide.');
  });

  it('is what was written when none of it had sounded yet', () => {
    const c = conversation().user('Hi.').deltas('Hello there, how ').interrupt();
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: 'Hello there, how', utteranceId: 1, interrupted: true });
  });
});
