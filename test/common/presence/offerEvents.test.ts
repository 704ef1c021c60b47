import { describe, expect, it } from 'vitest';
import { isWindowEvent, publicationOf } from '../../../common/presence/protocol';

const offer = { id: 'line-1', question: 'Which list?', items: ['Shopping', 'To-do'], taken: null };

describe('what the server says of offers', () => {
  it.each([
    ['an answer kept with its choices', { kind: 'offer', threadId: 't-1', clientId: 'k:1:assistant', text: 'Which list?', offer }, true],
    ['a choice taken', { kind: 'choice', offer: 'line-1', taken: 1 }, true],
    ['an offer with no choices', { kind: 'offer', threadId: 't-1', clientId: 'k:1:assistant', text: 'Which list?', offer: { ...offer, items: [] } }, false],
    ['a choice taken at no place', { kind: 'choice', offer: 'line-1', taken: -1 }, false],
    ['a line carrying its offer', { kind: 'line', conversation: 'k', line: { role: 'assistant', text: 'Which list?', utteranceId: 1, offer } }, true],
    ['a line carrying something else', { kind: 'line', conversation: 'k', line: { role: 'assistant', text: 'Which list?', utteranceId: 1, offer: 'Shopping' } }, false],
  ])('reads %s', (_, event, expected) => {
    expect(isWindowEvent(event)).toBe(expected);
  });

  it('is the server’s alone to say: a page may not publish it', () => {
    const events = [{ kind: 'choice', offer: 'line-1', taken: 1 }];
    expect(publicationOf({ bot: 'demo', page: 'page-0001', events })).toEqual({ ok: false, problem: 'event.server-kind' });
  });
});
