import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

const DUE = 'It’s time to call the dentist.';
const ALSO = 'Water the plants.';

describe('something the bot says of its own accord', () => {
  it('is said at once while the turn is the person’s, and kept as an assistant line of its own', () => {
    const c = conversation().user('Hi.').bot('Hello.').plays().announces(DUE);
    expect(c.turn).toBe('announcing');
    expect(c.utteranceId).toBe(2);
    expect(c.spoken.at(-1)).toMatchObject({ utteranceId: 2, piece: 0, text: DUE });
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: DUE, utteranceId: 2 });
    c.plays();
    expect(c.turn).toBe('listening');
    expect(c.effects).toContainEqual({ type: 'saveLine', params: { role: 'assistant', text: DUE, utteranceId: 2 } });
  });

  it('waits while an answer is under way, and is said once it has played out, never over it', () => {
    const c = conversation().user('Tell me a story.').streamWords('Once upon a time. ').announces(DUE);
    expect(c.turn).toBe('thinking');
    expect(c.context.announcements).toEqual([DUE]);
    c.answerDone().starts(0);
    expect(c.spoken.map((p) => p.text)).not.toContain(DUE);
    c.ends(0);
    expect(c.turn).toBe('announcing');
    expect(c.spoken.at(-1)?.text).toBe(DUE);
    expect(c.context.announcements).toEqual([]);
  });

  it('waits while the person is talking or holding the talk control', () => {
    const talking = conversation().hears('what is').announces(DUE);
    expect(talking.turn).toBe('listening');
    talking.send({ type: 'user.said', text: 'what is the time', via: 'voice', turnId: 'turn-what-is-the-time' }).bot('Noon.').plays();
    expect(talking.turn).toBe('announcing');
    const holding = conversation({ pushToTalk: true }).press().announces(DUE);
    expect(holding.turn).toBe('listening');
    holding.release();
    expect(holding.turn).toBe('announcing');
  });

  it('waits while a question waits for the person’s yes or no, and until its outcome has been said', () => {
    const c = conversation().user('Clear my shopping list.').asks().plays().announces(DUE);
    expect(c.turn).toBe('confirming');
    c.presses('yes');
    c.announces(ALSO);
    c.settles('done', 'Done.');
    expect(c.spoken.at(-1)?.text).toBe('Done.');
    c.plays();
    expect(c.spoken.at(-1)?.text).toBe(DUE);
    c.plays();
    expect(c.spoken.at(-1)?.text).toBe(ALSO);
    c.plays();
    expect(c.turn).toBe('listening');
  });

  it('waits for the greeting, and then comes after it', () => {
    const c = conversation().greets('Hello, I am Sage.').announces(DUE);
    expect(c.turn).toBe('greeting');
    c.plays();
    expect(c.turn).toBe('announcing');
    expect(c.context.lines.map((l) => l.text)).toEqual(['Hello, I am Sage.', DUE]);
  });

  it('is talked over like an answer, kept as what was heard of it', () => {
    const c = conversation().announces(`${DUE} Then ${ALSO.toLowerCase()}`).starts(0).interrupt();
    expect(c.turn).toBe('listening');
    expect(c.effects.map((e) => e.type)).toEqual(expect.arrayContaining(['stopAudio', 'cancelUtterance']));
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: DUE, utteranceId: 1, interrupted: true });
  });

  it('gives way to a question said before it is heard', () => {
    const c = conversation().announces(DUE).user('What time is it?');
    expect(c.turn).toBe('thinking');
  });

  it('is queued once, and a blank one not at all', () => {
    const c = conversation().user('Hi.').announces(DUE).announces('  ');
    expect(c.context.announcements).toEqual([DUE]);
  });

  it('is only shown with speech off', () => {
    const c = conversation({ speech: false }).announces(DUE).announces(ALSO);
    expect(c.turn).toBe('listening');
    expect(c.spoken).toEqual([]);
    expect(c.context.lines.map((l) => l.text)).toEqual([DUE, ALSO]);
  });
});

describe('news of one thing said between turns', () => {
  it('is said as it is now: a newer word of it takes the place of one still waiting, and an ended one is dropped unsaid', () => {
    const c = conversation().user('Tell me a story.').streamWords('Once upon a time. ');
    c.send({ type: 'bot.announces', text: 'Still on it: 1 step done.', about: 'run-1' });
    c.send({ type: 'bot.announces', text: DUE });
    c.send({ type: 'bot.announces', text: 'Still on it: 2 steps done.', about: 'run-1' });
    expect(c.context.announcements).toEqual([DUE, 'Still on it: 2 steps done.']);
    c.send({ type: 'bot.announces', text: 'Still on it: 1 step done.', about: 'run-2' });
    c.send({ type: 'bot.withdraws', about: 'run-1' });
    expect(c.context.announcements).toEqual([DUE, 'Still on it: 1 step done.']);
    c.answerDone().plays();
    expect(c.spoken.at(-1)?.text).toBe(DUE);
  });
});
