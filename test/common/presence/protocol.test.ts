import { describe, expect, it } from 'vitest';
import { EVENT_TEXT_MAX, isLiveState, isSeat, isWindowEvent, presenceMessageOf, publicationOf } from '../../../common/presence/protocol';

const page = { page: 'page-000001', device: 'device-0001' };

describe('what pages and the server say about presence', () => {
  it('knows each kind of window event, and nothing else', () => {
    const good: unknown[] = [
      { kind: 'conversation', conversation: 'thread:abc', threadId: 'abc', reopened: true },
      { kind: 'line', conversation: 'c-1', line: { role: 'user', text: 'Hi.', utteranceId: 1 } },
      { kind: 'line', conversation: 'c-1', line: { role: 'assistant', text: 'Hi.', utteranceId: 1, interrupted: true } },
      { kind: 'piece', conversation: 'c-1', utteranceId: 1, piece: 0, text: 'Hello,' },
      { kind: 'notice', text: 'Reminder: stretch.' },
      { kind: 'verb', verb: 'lists.add', ok: true, sentence: null, origin: 'late' },
      { kind: 'presence', active: page, term: 2 },
      { kind: 'presence', active: null, term: 3 },
    ];
    for (const event of good) expect(isWindowEvent(event)).toBe(true);
    const bad: unknown[] = [
      null,
      [],
      { kind: 'other' },
      { kind: 'line', conversation: 'has space', line: { role: 'user', text: 'Hi.', utteranceId: 1 } },
      { kind: 'line', conversation: 'c', line: { role: 'robot', text: 'Hi.', utteranceId: 1 } },
      { kind: 'line', conversation: 'c', line: { role: 'user', text: 'x'.repeat(EVENT_TEXT_MAX + 1), utteranceId: 1 } },
      { kind: 'piece', conversation: 'c', utteranceId: -1, piece: 0, text: '' },
      { kind: 'verb', verb: 'lists.add', ok: true, sentence: null, origin: 'somewhere' },
      { kind: 'presence', active: { page: 'x', device: 'y' }, term: 1 },
      { kind: 'conversation', conversation: 'c', threadId: 5, reopened: false },
    ];
    for (const event of bad) expect(isWindowEvent(event)).toBe(false);
  });

  it('reads the stream’s messages by their SSE names, and passes over anything else', () => {
    const seat = { role: 'passive', term: 2, active: page };
    const you = '0123456789abcdef0123456789abcdef';
    expect(presenceMessageOf('hello', { seat, latestSeq: 4, owed: 'events', conversation: null, you })).toEqual({ type: 'hello', seat, latestSeq: 4, owed: 'events', conversation: null, you });
    expect(presenceMessageOf('hello', { seat, latestSeq: 4, owed: 'maybe', conversation: null, you })).toBeUndefined();
    expect(presenceMessageOf('hello', { seat, latestSeq: 4, owed: 'events', conversation: null, you: 'Not a tag' })).toBeUndefined();
    expect(presenceMessageOf('seat', { seat })).toEqual({ type: 'seat', seat });
    expect(presenceMessageOf('seat', { seat: { ...seat, role: 'boss' } })).toBeUndefined();
    expect(presenceMessageOf('event', { sequenced: { seq: 3, atMs: 10, event: { kind: 'notice', text: 'Hi.' } } })).toMatchObject({ type: 'event' });
    expect(presenceMessageOf('event', { sequenced: { seq: 0, atMs: 10, event: { kind: 'notice', text: 'Hi.' } } })).toBeUndefined();
    const live = { conversation: 'c', liveLine: 'what', phase: 'speaking', draft: { utteranceId: 2, text: 'It is' } };
    expect(presenceMessageOf('live', { from: page.page, live })).toEqual({ type: 'live', from: page.page, live });
    expect(presenceMessageOf('live', { from: page.page, live: { ...live, phase: 'dancing' } })).toBeUndefined();
    expect(presenceMessageOf('yield', { to: page })).toEqual({ type: 'yield', to: page });
    expect(presenceMessageOf('yield', { to: { page: 'x' } })).toBeUndefined();
    expect(presenceMessageOf('ping', {})).toBeUndefined();
    expect(presenceMessageOf('seat', 'nonsense')).toBeUndefined();
    expect(isSeat({ role: 'free', term: 1, active: null })).toBe(true);
    expect(isLiveState({ conversation: 'c', liveLine: '', phase: 'listening', draft: null })).toBe(true);
  });

  it('reads what a page publishes, or names what is wrong with it by a code', () => {
    expect(publicationOf({ bot: 'demo', page: page.page, events: [{ kind: 'notice', text: 'Hi.' }] })).toEqual({ ok: true, publication: { bot: 'demo', page: page.page, events: [{ kind: 'notice', text: 'Hi.' }], live: null } });
    expect(publicationOf('x')).toEqual({ ok: false, problem: 'body.not-object' });
    expect(publicationOf({ bot: '', page: page.page })).toEqual({ ok: false, problem: 'bot.missing' });
    expect(publicationOf({ bot: 'demo', page: 'no' })).toEqual({ ok: false, problem: 'page.not-id' });
    expect(publicationOf({ bot: 'demo', page: page.page, events: new Array(33).fill({ kind: 'notice', text: 'a' }) })).toEqual({ ok: false, problem: 'events.misshapen' });
    expect(publicationOf({ bot: 'demo', page: page.page, events: [{ kind: 'verb', verb: 'a.b', ok: true, sentence: null, origin: 'late' }] })).toEqual({ ok: false, problem: 'event.server-kind' });
    expect(publicationOf({ bot: 'demo', page: page.page, events: [{ kind: 'line' }] })).toEqual({ ok: false, problem: 'event.misshapen' });
    expect(publicationOf({ bot: 'demo', page: page.page, live: { conversation: 'c' } })).toEqual({ ok: false, problem: 'live.misshapen' });
  });
});
