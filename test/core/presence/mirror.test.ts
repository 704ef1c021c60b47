import { describe, expect, it } from 'vitest';
import { applyEvent, EMPTY_MIRROR, linesToTakeOver, mirrorEvent, mirrorLive, mirrorReloaded, mirrorView } from '../../../src/core/presence/mirror';
import type { Mirror } from '../../../src/core/presence/mirror';
import type { LiveState, Sequenced, WindowEvent } from '../../../common/presence/protocol';

let seq = 0;
const at = (event: WindowEvent): Sequenced => ({ seq: ++seq, atMs: seq, event });
const started: WindowEvent = { kind: 'conversation', conversation: 'conv-a', threadId: null, reopened: false };
const asked = (text: string, utteranceId: number): WindowEvent => ({ kind: 'line', conversation: 'conv-a', line: { role: 'user', text, utteranceId } });
const answered = (text: string, utteranceId: number, interrupted = false): WindowEvent => ({
  kind: 'line',
  conversation: 'conv-a',
  line: interrupted ? { role: 'assistant', text, utteranceId, interrupted } : { role: 'assistant', text, utteranceId },
});
const piece = (utteranceId: number, n: number, text: string): WindowEvent => ({ kind: 'piece', conversation: 'conv-a', utteranceId, piece: n, text });
const live = (change: Partial<LiveState>): LiveState => ({ conversation: 'conv-a', liveLine: '', phase: 'listening', draft: null, ...change });

function fold(events: Sequenced[], from: Mirror = EMPTY_MIRROR): Mirror {
  return events.reduce(mirrorEvent, from);
}

describe('the mirror of the active page', () => {
  it('shows lines as they are kept, in the order said', () => {
    const mirror = fold([at(started), at(asked('What time is it?', 1)), at(answered("It's noon.", 1)), at(asked('Thanks.', 2))]);
    expect(mirrorView(mirror).lines.map((l) => l.text)).toEqual(['What time is it?', "It's noon.", 'Thanks.']);
  });

  it('applies each event once, however often it arrives', () => {
    const events = [at(started), at(asked('Hello.', 1))];
    const once = fold(events);
    const twice = fold([...events, ...events], once);
    expect(twice).toBe(once);
    // The same line from this browser's channel, ahead of the server, is one line too.
    expect(mirrorView(applyEvent(once, asked('Hello.', 1))).lines).toHaveLength(1);
  });

  it('shows an answer piece by piece as it is spoken, then the kept line in its place', () => {
    let mirror = fold([at(started), at(asked('Tell me a story.', 1)), at(piece(1, 0, 'Once upon a time,')), at(piece(1, 1, 'there was a fox.'))]);
    expect(mirrorView(mirror).lines.at(-1)).toEqual({ role: 'assistant', text: 'Once upon a time, there was a fox.', utteranceId: 1 });
    mirror = fold([at(answered('Once upon a time, there was a fox. The end.', 1))], mirror);
    expect(mirrorView(mirror).lines.map((l) => l.text)).toEqual(['Tell me a story.', 'Once upon a time, there was a fox. The end.']);
    expect(mirror.pieces).toEqual({});
  });

  it('shows the live line and the draft of the answer, without saying the question twice', () => {
    let mirror = fold([at(started)]);
    mirror = mirrorLive(mirror, live({ liveLine: 'what time', phase: 'listening' }));
    expect(mirrorView(mirror)).toMatchObject({ liveLine: 'what time', phase: 'listening' });
    mirror = fold([at(asked('What time is it?', 1))], mirror);
    mirror = mirrorLive(mirror, live({ liveLine: 'What time is it?', phase: 'thinking' }));
    expect(mirrorView(mirror)).toMatchObject({ liveLine: '', phase: 'thinking' });
    mirror = mirrorLive(mirror, live({ phase: 'speaking', draft: { utteranceId: 1, text: "It's" } }));
    expect(mirrorView(mirror).lines.at(-1)?.text).toBe("It's");
  });

  it('starts afresh when the active page starts another conversation', () => {
    let mirror = fold([at(started), at(asked('Hello.', 1))]);
    mirror = fold([at({ kind: 'conversation', conversation: 'conv-b', threadId: null, reopened: false })], mirror);
    expect(mirrorView(mirror).lines).toEqual([]);
    expect(mirror.needsLines).toBe(false);
    // A late line of the old conversation is not shown in the new one.
    mirror = fold([at(asked('Late.', 2))], mirror);
    expect(mirrorView(mirror).lines).toEqual([]);
  });

  it('asks for the lines of a conversation reopened from the drawer, and keeps the thread when it is learnt', () => {
    let mirror = fold([at({ kind: 'conversation', conversation: 'thread:t-1', threadId: 't-1', reopened: true })]);
    expect(mirror.needsLines).toBe(true);
    mirror = mirrorReloaded(mirror, mirror.conversation, [{ role: 'user', text: 'Earlier.', utteranceId: 1 }], mirror.lastSeq);
    expect(mirror.needsLines).toBe(false);
    mirror = fold([at({ kind: 'conversation', conversation: 'thread:t-1', threadId: 't-1', reopened: false })], mirror);
    expect(mirror.conversation).toEqual({ conversation: 'thread:t-1', threadId: 't-1', reopened: true });
    expect(mirrorView(mirror).lines).toHaveLength(1);
  });

  it('takes over with the answer under way kept as interrupted', () => {
    const mirror = fold([at(started), at(asked('Tell me a story.', 1)), at(piece(1, 0, 'Once upon a time,'))]);
    expect(linesToTakeOver(mirror)).toEqual([
      { role: 'user', text: 'Tell me a story.', utteranceId: 1 },
      { role: 'assistant', text: 'Once upon a time,', utteranceId: 1, interrupted: true },
    ]);
  });

  it('passes over events it does not show, and live state of another conversation', () => {
    const mirror = fold([at(started)]);
    expect(applyEvent(mirror, { kind: 'notice', text: 'Reminder.' })).toBe(mirror);
    expect(applyEvent(mirror, { kind: 'presence', active: null, term: 3 })).toBe(mirror);
    expect(mirrorLive(mirror, { ...live({}), conversation: 'conv-z' })).toBe(mirror);
  });
});
