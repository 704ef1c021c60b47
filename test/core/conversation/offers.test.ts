import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../common/conversation/choices';
import type { Line } from '../../../common/conversation/events';
import { openOffer, withOffer, withTaken } from '../../../src/core/conversation/offers';
import { conversation } from '../../helpers/conversation';

const WHICH = 'Which list?\n\n- Shopping\n- To-do';
const offer: Offer = { id: 'line-1', question: 'Which list?', items: ['Shopping', 'To-do'], taken: null };

describe('an answer that offers choices', () => {
  it('is said as its question and its choices in one sentence, never item by item', () => {
    const c = conversation().user('Add milk to my list.').bot(WHICH);
    expect(c.spoken.map((piece) => piece.text)).toEqual(['Which list: shopping or to-do?']);
  });

  it('holds its question’s last word and its list from the voice while it streams, until its end says it is an offer', () => {
    const c = conversation().user('Add milk to my list.').streamWords(`Sure thing. ${WHICH}`);
    expect(c.spoken.map((piece) => piece.text)).toEqual(['Sure thing.']);
    c.answerDone();
    expect(c.spoken.map((piece) => piece.text)).toEqual(['Sure thing.', 'Which list: shopping or to-do?']);
  });

  it('says the question as written, at once, when no list follows it', () => {
    const c = conversation().user('Add milk to my list.').streamWords('Which list?\n\nTell me ');
    expect(c.spoken.map((piece) => piece.text)).toEqual(['Which list?']);
  });

  it('reads a list that is not the answer’s last lines as it always has', () => {
    const c = conversation().user('Steps?').bot('Do this:\n- Open it\n- Close it\nThat is all.');
    expect(c.spoken.map((piece) => piece.text).join(' ')).toBe('Do this: Open it. Close it. That is all.');
  });

  it('is written as it streamed until the server’s cut is laid on it, then shows its words and its choices', () => {
    const c = conversation().user('Add milk to my list.').bot(WHICH).plays();
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: WHICH, utteranceId: 1 });
    c.send({ type: 'offer.kept', utteranceId: 1, text: 'Which list?', offer });
    expect(c.context.lines.at(-1)).toEqual({ role: 'assistant', text: 'Which list?', utteranceId: 1, offer });
    c.send({ type: 'offer.taken', offer: 'line-1', taken: 1 });
    expect(c.context.lines.at(-1)?.offer?.taken).toBe(1);
  });

  it('is given back to the model as the list it wrote, so it knows what the person picked from', () => {
    const c = conversation().user('Add milk to my list.').bot(WHICH).plays();
    c.send({ type: 'offer.kept', utteranceId: 1, text: 'Which list?', offer }).types('Shopping');
    expect(c.stream.request.messages).toEqual([
      { role: 'user', content: 'Add milk to my list.' },
      { role: 'assistant', content: WHICH },
      { role: 'user', content: 'Shopping' },
    ]);
  });

  it('is said as one question when the bot says it of its own accord', () => {
    const c = conversation().greets('Hello! What shall we do?\n- Chat\n- Plan a trip');
    expect(c.spoken.map((piece) => piece.text)).toEqual(['Hello!', 'What shall we do: chat or plan a trip?']);
  });
});

describe('offers on the written conversation', () => {
  const lines: Line[] = [
    { role: 'user', text: 'Add milk to my list.', utteranceId: 1 },
    { role: 'assistant', text: WHICH, utteranceId: 1 },
  ];

  it('lays an offer on the answer it names, and on nothing else', () => {
    expect(withOffer(lines, 1, 'Which list?', offer)[1]).toEqual({ role: 'assistant', text: 'Which list?', utteranceId: 1, offer });
    expect(withOffer(lines, 2, 'Which list?', offer)).toBe(lines);
    const cut: Line[] = [{ ...lines[1], interrupted: true } as Line];
    expect(withOffer(cut, 1, 'Which list?', offer)).toBe(cut);
  });

  it('keeps the taken choice when the same offer is laid on again', () => {
    const taken = withTaken(withOffer(lines, 1, 'Which list?', offer), 'line-1', 0);
    expect(withOffer(taken, 1, 'Which list?', offer)[1]?.offer?.taken).toBe(0);
  });

  it('marks a taken choice only on the offer it names, and only a choice it has', () => {
    const offered = withOffer(lines, 1, 'Which list?', offer);
    expect(withTaken(offered, 'line-1', 1)[1]?.offer?.taken).toBe(1);
    expect(withTaken(offered, 'line-2', 1)).toBe(offered);
    expect(withTaken(offered, 'line-1', 2)).toBe(offered);
  });

  it('has one open offer at most: the newest line’s, until a choice of it is taken', () => {
    const offered = withOffer(lines, 1, 'Which list?', offer);
    expect(openOffer(offered)).toEqual(offer);
    expect(openOffer(withTaken(offered, 'line-1', 0))).toBeNull();
    expect(openOffer([...offered, { role: 'user', text: 'Never mind.', utteranceId: 2 }])).toBeNull();
    expect(openOffer([])).toBeNull();
  });
});
