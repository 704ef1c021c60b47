/**
 * Tool calls put back together from a stream, with each quirk providers have been seen to have.
 */
import { describe, expect, it } from 'vitest';
import { ToolCallAccumulator } from '../../../server/chat/toolCalls';
import type { ToolCallPiece } from '../../../server/chat/toolCalls';

function accumulate(pieces: readonly ToolCallPiece[]) {
  const calls = new ToolCallAccumulator();
  for (const piece of pieces) calls.push(piece);
  return calls;
}

describe('ToolCallAccumulator', () => {
  it('joins arguments split over many pieces to the call whose id and name came first', () => {
    const calls = accumulate([
      { index: 0, id: 'call_a', name: 'tally-add', arguments: '' },
      { index: 0, arguments: '{"te' },
      { index: 0, arguments: 'xt":"sw' },
      { index: 0, arguments: 'allow"}' },
    ]);
    expect(calls.calls()).toEqual([{ id: 'call_a', name: 'tally-add', arguments: '{"text":"swallow"}' }]);
    expect(calls.size).toBe(1);
  });

  it('takes a whole call sent in one piece', () => {
    expect(accumulate([{ index: 0, id: 'call_a', name: 'tally-count', arguments: '{}' }]).calls()).toEqual([
      { id: 'call_a', name: 'tally-count', arguments: '{}' },
    ]);
  });

  it('keeps parallel calls at indexes 0, 1 and 2 apart, even with their pieces interleaved', () => {
    const calls = accumulate([
      { index: 0, id: 'call_a', name: 'tally-add', arguments: '' },
      { index: 1, id: 'call_b', name: 'tally-add', arguments: '' },
      { index: 0, arguments: '{"text":' },
      { index: 2, id: 'call_c', name: 'tally-count', arguments: '{' },
      { index: 1, arguments: '{"text":"wren"}' },
      { index: 0, arguments: '"robin"}' },
      { index: 2, arguments: '}' },
    ]);
    expect(calls.calls()).toEqual([
      { id: 'call_a', name: 'tally-add', arguments: '{"text":"robin"}' },
      { id: 'call_b', name: 'tally-add', arguments: '{"text":"wren"}' },
      { id: 'call_c', name: 'tally-count', arguments: '{}' },
    ]);
  });

  it('starts a new call for each new id when every call comes at index 0', () => {
    const calls = accumulate([
      { index: 0, id: 'call_a', name: 'tally-add', arguments: '{"text":' },
      { index: 0, arguments: '"robin"}' },
      { index: 0, id: 'call_b', name: 'tally-add', arguments: '{"text":"wren"}' },
      { index: 0, id: 'call_c', name: 'tally-count' },
      { index: 0, arguments: '{}' },
    ]);
    expect(calls.calls()).toEqual([
      { id: 'call_a', name: 'tally-add', arguments: '{"text":"robin"}' },
      { id: 'call_b', name: 'tally-add', arguments: '{"text":"wren"}' },
      { id: 'call_c', name: 'tally-count', arguments: '{}' },
    ]);
  });

  it('keeps one call when its id is repeated on every piece', () => {
    const calls = accumulate([
      { index: 0, id: 'call_a', name: 'tally-add', arguments: '' },
      { index: 0, id: 'call_a', arguments: '{"text"' },
      { index: 0, id: 'call_a', name: 'tally-add', arguments: ':"robin"}' },
    ]);
    expect(calls.calls()).toEqual([{ id: 'call_a', name: 'tally-add', arguments: '{"text":"robin"}' }]);
  });

  it('reads pieces with no index as index 0, one call after another by their ids', () => {
    const calls = accumulate([
      { id: 'call_a', name: 'tally-add', arguments: '{"text":"robin"' },
      { arguments: '}' },
      { id: 'call_b', name: 'tally-count', arguments: '{}' },
    ]);
    expect(calls.calls()).toEqual([
      { id: 'call_a', name: 'tally-add', arguments: '{"text":"robin"}' },
      { id: 'call_b', name: 'tally-count', arguments: '{}' },
    ]);
  });

  it('gives a call with no id call_<n>, its place among the calls', () => {
    const calls = accumulate([
      { index: 0, name: 'tally-add', arguments: '{"text":' },
      { index: 0, arguments: '"robin"}' },
      { index: 1, id: 'call_given', name: 'tally-count', arguments: '{}' },
      { index: 2, name: 'chime-now', arguments: '{}' },
    ]);
    expect(calls.calls()).toEqual([
      { id: 'call_0', name: 'tally-add', arguments: '{"text":"robin"}' },
      { id: 'call_given', name: 'tally-count', arguments: '{}' },
      { id: 'call_2', name: 'chime-now', arguments: '{}' },
    ]);
  });

  it('starts a new call with no id at index 0 when another name arrives, or the same name after whole arguments', () => {
    const calls = accumulate([
      { index: 0, name: 'tally-add', arguments: '{"text":"robin"}' },
      { index: 0, name: 'tally-add', arguments: '{"text":"wren"}' },
      { index: 0, name: 'tally-count', arguments: '{}' },
    ]);
    expect(calls.calls()).toEqual([
      { id: 'call_0', name: 'tally-add', arguments: '{"text":"robin"}' },
      { id: 'call_1', name: 'tally-add', arguments: '{"text":"wren"}' },
      { id: 'call_2', name: 'tally-count', arguments: '{}' },
    ]);
  });

  it('keeps one call with no id when its name is repeated while its arguments are still arriving', () => {
    const calls = accumulate([
      { index: 0, name: 'tally-add', arguments: '' },
      { index: 0, name: 'tally-add', arguments: '{"text":' },
      { index: 0, name: 'tally-add', arguments: '"robin"}' },
    ]);
    expect(calls.calls()).toEqual([{ id: 'call_0', name: 'tally-add', arguments: '{"text":"robin"}' }]);
  });

  it('takes an id that arrives after the name on a later piece of the same call', () => {
    const calls = accumulate([
      { index: 0, name: 'tally-add', arguments: '{"text":' },
      { index: 0, id: 'call_late', arguments: '"robin"}' },
    ]);
    expect(calls.calls()).toEqual([{ id: 'call_late', name: 'tally-add', arguments: '{"text":"robin"}' }]);
  });

  it('has no calls before any piece, so a turn with none is not a tool turn', () => {
    const calls = new ToolCallAccumulator();
    expect(calls.size).toBe(0);
    expect(calls.calls()).toEqual([]);
  });

  it('keeps arguments exactly as the model wrote them, even when they are not JSON', () => {
    expect(accumulate([{ index: 0, id: 'call_a', name: 'tally-add', arguments: '{"text": robin' }]).calls()[0]?.arguments).toBe('{"text": robin');
  });
});
