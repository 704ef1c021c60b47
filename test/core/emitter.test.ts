import { describe, expect, it } from 'vitest';
import { createEmitter } from '../../src/core/emitter';

interface Events {
  paced: number;
  bargeIn: undefined;
}

describe('a typed emitter', () => {
  it('calls each listener of an event with its value, in the order they were added, and no other event’s', () => {
    const emitter = createEmitter<Events>();
    const heard: string[] = [];
    emitter.on('paced', (pace) => heard.push(`first ${pace}`));
    emitter.on('paced', (pace) => heard.push(`second ${pace}`));
    emitter.on('bargeIn', () => heard.push('barge-in'));
    emitter.emit('paced', 3);
    expect(heard).toEqual(['first 3', 'second 3']);
    emitter.emit('bargeIn');
    expect(heard).toEqual(['first 3', 'second 3', 'barge-in']);
  });

  it('stops calling a listener once it is removed, and every listener once cleared', () => {
    const emitter = createEmitter<Events>();
    const heard: number[] = [];
    const stop = emitter.on('paced', (pace) => heard.push(pace));
    emitter.on('paced', (pace) => heard.push(pace * 10));
    emitter.emit('paced', 1);
    stop();
    emitter.emit('paced', 2);
    expect(heard).toEqual([1, 10, 20]);
    emitter.clear();
    emitter.emit('paced', 3);
    expect(heard).toEqual([1, 10, 20]);
  });

  it('does not call a listener removed by an earlier one during the same emit', () => {
    const emitter = createEmitter<Events>();
    const heard: string[] = [];
    let stopSecond = () => undefined as unknown;
    emitter.on('bargeIn', () => {
      heard.push('first');
      stopSecond();
    });
    stopSecond = emitter.on('bargeIn', () => heard.push('second'));
    emitter.emit('bargeIn');
    expect(heard).toEqual(['first']);
  });
});
