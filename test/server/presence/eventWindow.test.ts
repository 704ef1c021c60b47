import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { append, boundsOf, emptyWindow, eventsFrom, latestConversationSeq, owedTo, WINDOW_CAPACITY } from '../../../server/presence/eventWindow';
import type { EventWindow } from '../../../server/presence/eventWindow';
import type { WindowEvent } from '../../../common/presence/protocol';

const line = (n: number): WindowEvent => ({ kind: 'line', conversation: 'c1', line: { role: 'user', text: `line ${n}`, utteranceId: n } });

function filled(count: number, capacity = WINDOW_CAPACITY): EventWindow {
  let window = emptyWindow(capacity);
  for (let n = 1; n <= count; n++) window = append(window, line(n), 1000 + n).window;
  return window;
}

describe('the presence window', () => {
  it('numbers events from 1, one after another, with the time each was kept', () => {
    let window = emptyWindow();
    const first = append(window, line(1), 5_000);
    window = first.window;
    const second = append(window, line(2), 5_010);
    expect([first.sequenced.seq, second.sequenced.seq]).toEqual([1, 2]);
    expect(second.sequenced).toEqual({ seq: 2, atMs: 5_010, event: line(2) });
    expect(second.window.latestSeq).toBe(2);
  });

  it('holds 200 events by default and lets the oldest go, never reusing a number', () => {
    const window = filled(250);
    expect(window.events).toHaveLength(200);
    expect(boundsOf(window)).toEqual({ oldestSeq: 51, latestSeq: 250 });
    expect(append(window, line(251), 0).sequenced.seq).toBe(251);
  });

  it('says an empty window holds nothing: its oldest is one past its latest', () => {
    expect(boundsOf(emptyWindow())).toEqual({ oldestSeq: 1, latestSeq: 0 });
  });

  it('refuses a capacity that is not a whole number of events, saying what it should be', () => {
    expect(() => emptyWindow(0)).toThrow('eventWindow.capacity is 0; it must be a whole number, 1 or more.');
    expect(() => emptyWindow(2.5)).toThrow(OptionError);
  });

  describe('what a page is owed', () => {
    const window = filled(250);
    const bounds = boundsOf(window);

    it('owes a page that comes back every event after the last one it has, in order', () => {
      const owed = owedTo(bounds, 240, null);
      expect(owed).toEqual({ owed: 'events', fromSeq: 241 });
      expect(eventsFrom(window, owed.fromSeq).map((e) => e.seq)).toEqual([241, 242, 243, 244, 245, 246, 247, 248, 249, 250]);
    });

    it('owes nothing to a page that has everything', () => {
      expect(owedTo(bounds, 250, null)).toEqual({ owed: 'nothing', fromSeq: 251 });
    });

    it('owes the events from the oldest kept when the page is exactly at the edge', () => {
      expect(owedTo(bounds, 50, null)).toEqual({ owed: 'events', fromSeq: 51 });
    });

    it('tells a page that fell out of the window to reload the conversation from its lines', () => {
      expect(owedTo(bounds, 49, null).owed).toBe('reload');
      expect(owedTo(bounds, 0, null).owed).toBe('reload');
    });

    it('tells a page that has more than the server knows (a window wiped) to reload', () => {
      expect(owedTo(bounds, 400, null).owed).toBe('reload');
    });

    it('owes a page that opens afresh the conversation on screen, from its start', () => {
      expect(owedTo(bounds, null, 230)).toEqual({ owed: 'events', fromSeq: 230 });
      expect(owedTo(bounds, null, null)).toEqual({ owed: 'nothing', fromSeq: 251 });
      expect(owedTo(bounds, null, 20)).toEqual({ owed: 'reload', fromSeq: 251 });
    });
  });

  it('finds the latest conversation event it holds', () => {
    let window = filled(3);
    expect(latestConversationSeq(window)).toBeNull();
    window = append(window, { kind: 'conversation', conversation: 'c2', threadId: null, reopened: false }, 0).window;
    window = append(window, line(5), 0).window;
    expect(latestConversationSeq(window)).toBe(4);
  });
});
