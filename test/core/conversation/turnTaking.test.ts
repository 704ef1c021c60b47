import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('a turn', () => {
  it('starts listening with the recogniser on and an empty live line', () => {
    const c = conversation();
    expect(c.turn).toBe('listening');
    expect(c.recogniserOn).toBe(true);
    expect(c.context.liveLine).toBe('');
  });

  it('shows interim words as the live line while listening', () => {
    const c = conversation().hears('what is').hears('what is the weather');
    expect(c.context.liveLine).toBe('what is the weather');
    expect(c.turn).toBe('listening');
  });

  it('sends the question and holds it on the live line while thinking', () => {
    const c = conversation().user('What is the weather in Lisbon?');
    expect(c.turn).toBe('thinking');
    expect(c.context.liveLine).toBe('What is the weather in Lisbon?');
    expect(c.stream.request.messages).toEqual([{ role: 'user', content: 'What is the weather in Lisbon?' }]);
    expect(c.context.lines).toEqual([]);
  });

  it('keeps the question the moment it is said, before any answer', () => {
    const c = conversation().user('Remember the milk.');
    expect(c.effects).toContainEqual({
      type: 'saveLine',
      params: { role: 'user', text: 'Remember the milk.', utteranceId: 1 },
    });
  });

  it('clears the live line and settles the question into the transcript when the answer arrives', () => {
    const c = conversation().user('Hello there.').deltas('Hi');
    expect(c.context.liveLine).toBe('');
    expect(c.context.lines).toEqual([
      { role: 'user', text: 'Hello there.', utteranceId: 1 },
      { role: 'assistant', text: 'Hi', utteranceId: 1 },
    ]);
    c.deltas('! How are you?');
    expect(c.context.lines[1]?.text).toBe('Hi! How are you?');
  });

  it('speaks the opening sentence as soon as its boundary arrives, before the answer ends', () => {
    const c = conversation().user('Hi.').streamWords('Sure thing. The weather is ');
    expect(c.spoken).toEqual([{ utteranceId: 1, piece: 0, text: 'Sure thing.', voice: 'device', steps: 8, floor: 8 }]);
  });

  it('uses the opening steps for the first piece and the full steps after it', () => {
    const c = conversation({ talk: { steps: 8, opening: 3 } })
      .user('Tell me something.')
      .bot('First things first. Then the rest of it follows here.');
    expect(c.spoken.map((r) => r.steps)).toEqual([3, 8]);
  });

  it('turns the recogniser off when the assistant becomes audible', () => {
    const c = conversation().user('Hi.').streamWords('Hello there. ');
    expect(c.recogniserOn).toBe(true);
    c.starts(0);
    expect(c.turn).toBe('speaking');
    expect(c.recogniserOn).toBe(false);
  });

  it('plays on after the answer text is complete and returns the turn only when the audio drains', () => {
    const c = conversation().user('Hi.').bot('Hello there. It is a fine day for a walk.');
    c.starts(0);
    expect(c.context.answerEnded).toBe(true);
    expect(c.turn).toBe('speaking');
    c.ends(0);
    expect(c.turn).toBe('speaking');
    c.starts(1);
    c.ends(1);
    expect(c.turn).toBe('listening');
    expect(c.recogniserOn).toBe(true);
  });

  it('stays speaking through a gap where the next piece is still being made', () => {
    const c = conversation().user('Hi.').streamWords('Hello there. It is ');
    c.starts(0).ends(0);
    expect(c.turn).toBe('speaking');
    expect(c.recogniserOn).toBe(false);
    c.deltas('late. ').answerDone();
    expect(c.turn).toBe('speaking');
    c.starts(1).ends(1);
    expect(c.turn).toBe('listening');
  });

  it('does not return the turn when the audio drains before the answer has ended', () => {
    const c = conversation().user('Hi.').streamWords('Hello there. ');
    c.starts(0).ends(0);
    expect(c.turn).toBe('speaking');
    c.answerDone();
    expect(c.turn).toBe('listening');
  });

  it('returns to listening with no audio when an answer has nothing to say aloud', () => {
    const c = conversation().user('Show me code.').deltas('```js\nlet x = 1;\n```').answerDone();
    expect(c.spoken).toEqual([]);
    expect(c.turn).toBe('listening');
  });

  it('saves the whole answer once the turn is over', () => {
    const c = conversation().user('Hi.').bot('Hello there. Nice to meet you.').plays();
    expect(c.effects.filter((e) => e.type === 'saveLine').map((e) => e.params)).toEqual([
      { role: 'user', text: 'Hi.', utteranceId: 1 },
      { role: 'assistant', text: 'Hello there. Nice to meet you.', utteranceId: 1 },
    ]);
  });

  it('sends the settled conversation with each new question', () => {
    const c = conversation().user('Hi.').bot('Hello.').plays().user('How are you?');
    expect(c.stream.request).toEqual({
      utteranceId: 2,
      turnId: 'turn-2',
      messages: [
        { role: 'user', content: 'Hi.' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: 'How are you?' },
      ],
    });
  });

  it('asks each question under the turn id it was said with, so the same words said again are a new turn', () => {
    const c = conversation().user('Add milk.');
    expect(c.stream.request.turnId).toBe('turn-1');
    c.bot('Done.').plays().user('Add milk.');
    expect(c.stream.request.turnId).toBe('turn-2');
    expect(c.stream.request.messages.at(-1)).toEqual({ role: 'user', content: 'Add milk.' });
  });

  it('ignores audio events for a piece of another utterance', () => {
    const c = conversation().user('Hi.').bot('Hello there.');
    c.starts(0, 7).ends(0, 7);
    expect(c.turn).toBe('thinking');
    c.plays();
    expect(c.turn).toBe('listening');
  });
});

describe('a conversation reopened from the drawer', () => {
  const earlier = [
    { role: 'user' as const, text: 'My cat is called Miso.', utteranceId: 1 },
    { role: 'assistant' as const, text: 'What a lovely name.', utteranceId: 1 },
    { role: 'user' as const, text: 'She is nine.', utteranceId: 2 },
    { role: 'assistant' as const, text: 'A fine age for a cat.', utteranceId: 2, interrupted: true },
  ];

  it('starts with its lines and sends them with the next question, which continues it', () => {
    const c = conversation({ lines: earlier }).user('What is her name?');
    expect(c.context.utteranceId).toBe(3);
    expect(c.stream.request.messages).toEqual([
      { role: 'user', content: 'My cat is called Miso.' },
      { role: 'assistant', content: 'What a lovely name.' },
      { role: 'user', content: 'She is nine.' },
      { role: 'assistant', content: 'A fine age for a cat.' },
      { role: 'user', content: 'What is her name?' },
    ]);
    c.bot('Miso.');
    expect(c.context.lines.slice(0, 4)).toEqual(earlier);
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: 'Miso.', utteranceId: 3 });
  });
});
