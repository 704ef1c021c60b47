import { describe, expect, it } from 'vitest';
import { nextStep } from '../../../server/runs/nextStep';
import type { DecisionInput } from '../../../server/runs/nextStep';
import type { AskedCall, RunStep, StepBody } from '../../../server/runs/types';

const STARTED_MS = Date.UTC(2026, 11, 2, 8, 0, 0);
const run = (over: Partial<DecisionInput['run']> = {}): DecisionInput['run'] => ({ state: 'running', maxSteps: 10, maxSpendUsd: 0.5, maxMinutes: 10, startedAtMs: STARTED_MS, ...over });
const steps = (...bodies: StepBody[]): RunStep[] => bodies.map((body, i) => ({ seq: i + 1, body, writeKey: null, spentUsd: 0 }));
const call = (id: string, verb = 'lists.add'): AskedCall => ({ id, verb, input: { list: 'shopping', items: [id] } });
const asks = (...calls: AskedCall[]): StepBody => ({ kind: 'model', model: 'm', text: '', toolCalls: calls });
const says = (text: string): StepBody => ({ kind: 'model', model: 'm', text, toolCalls: [] });
const ran = (id: string): StepBody => ({ kind: 'tool', callId: id, verb: 'lists.add', input: {}, outcome: { ok: true, output: {} } });
const decide = (over: Partial<DecisionInput> = {}) => nextStep({ run: run(), steps: [], nowMs: STARTED_MS + 1_000, spentUsd: 0, ...over });

describe('nextStep', () => {
  it('calls the model first', () => {
    expect(decide()).toEqual({ next: 'call_model' });
  });

  it('runs the tool the model asked for, then the next, then asks the model again', () => {
    expect(decide({ steps: steps(asks(call('a'), call('b'))) })).toEqual({ next: 'run_tool', call: call('a') });
    expect(decide({ steps: steps(asks(call('a'), call('b')), ran('a')) })).toEqual({ next: 'run_tool', call: call('b') });
    expect(decide({ steps: steps(asks(call('a'), call('b')), ran('a'), ran('b')) })).toEqual({ next: 'call_model' });
  });

  it('asks the model again after a tool, even when an earlier round used the same call id', () => {
    expect(decide({ steps: steps(asks(call('a')), ran('a'), asks(call('a'))) })).toEqual({ next: 'run_tool', call: call('a') });
  });

  it('says the model’s words when it answers without tools, and is finished once said', () => {
    expect(decide({ steps: steps(asks(call('a')), ran('a'), says('Done: milk is on it.')) })).toEqual({ next: 'say', text: 'Done: milk is on it.' });
    expect(decide({ steps: steps(says('Hi.'), { kind: 'say', text: 'Hi.', ending: 'finished' }) })).toEqual({ next: 'finished', answer: 'Hi.' });
  });

  it('runs no tool once cancelled after the model asked for it and before it ran', () => {
    expect(decide({ run: run({ state: 'cancelled' }), steps: steps(asks(call('a'))) })).toEqual({ next: 'cancelled' });
  });

  it('stops when the steps are spent mid-way, before the next tool', () => {
    expect(decide({ run: run({ maxSteps: 3 }), steps: steps(asks(call('a'), call('b')), ran('a'), ran('b')) })).toEqual({ next: 'out_of_steps' });
    expect(decide({ run: run({ maxSteps: 2 }), steps: steps(asks(call('a'), call('b')), ran('a')) })).toEqual({ next: 'out_of_steps' });
  });

  it('still says an answer already bought when the steps are spent', () => {
    expect(decide({ run: run({ maxSteps: 1 }), steps: steps(says('Here it is.')) })).toEqual({ next: 'say', text: 'Here it is.' });
  });

  it('stops when the money is spent, and when its minutes are', () => {
    expect(decide({ steps: steps(asks(call('a')), ran('a')), spentUsd: 0.5 })).toEqual({ next: 'out_of_money' });
    expect(decide({ steps: steps(asks(call('a'))), nowMs: STARTED_MS + 10 * 60_000 })).toEqual({ next: 'out_of_time' });
    expect(decide({ steps: steps(asks(call('a'))), nowMs: STARTED_MS + 10 * 60_000 - 1 })).toEqual({ next: 'run_tool', call: call('a') });
  });

  it('puts cancelled before the budget, and the budget in the order steps, money, time', () => {
    const spent = { run: run({ maxSteps: 1 }), steps: steps(asks(call('a'))), spentUsd: 1, nowMs: STARTED_MS + 60 * 60_000 };
    expect(decide(spent)).toEqual({ next: 'out_of_steps' });
    expect(decide({ ...spent, run: run({ maxSteps: 1, state: 'cancelled' }) })).toEqual({ next: 'cancelled' });
    expect(decide({ ...spent, run: run({ maxSteps: 5 }) })).toEqual({ next: 'out_of_money' });
    expect(decide({ ...spent, run: run({ maxSteps: 5 }), spentUsd: 0 })).toEqual({ next: 'out_of_time' });
  });
});
