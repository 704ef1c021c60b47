import { describe, expect, it } from 'vitest';
import { conversation } from '../../helpers/conversation';

describe('typing only', () => {
  it('says when there is no recogniser at all, and never starts one', () => {
    const c = conversation({ recogniser: false });
    expect(c.context.typing).toBe('unsupported');
    expect(c.count('startRecogniser')).toBe(0);
    c.send({ type: 'mic.unmute' });
    expect(c.context.typing).toBe('unsupported');
    c.types('Hello?').bot('Hi.').plays();
    expect(c.count('startRecogniser')).toBe(0);
  });

  it('stops the recogniser when muted, says so, and resumes when unmuted', () => {
    const c = conversation();
    c.send({ type: 'mic.mute' });
    expect(c.context.typing).toBe('muted');
    expect(c.recogniserOn).toBe(false);
    c.send({ type: 'mic.unmute' });
    expect(c.context.typing).toBeNull();
    expect(c.recogniserOn).toBe(true);
  });

  it('starts muted when asked to', () => {
    const c = conversation({ muted: true });
    expect(c.context.typing).toBe('muted');
    expect(c.count('startRecogniser')).toBe(0);
  });

  it('turns a refused microphone into typing with the reason, keeping the conversation', () => {
    const c = conversation().types('Hi.').deltas('Hello. ');
    c.send({ type: 'mic.refused', missing: false, reason: 'Microphone permission was denied.' });
    expect(c.context.typing).toBe('refused');
    expect(c.context.problem).toEqual({ kind: 'microphone', reason: 'Microphone permission was denied.' });
    expect(c.turn).toBe('thinking');
    expect(c.recogniserOn).toBe(false);
  });

  it('tells a missing microphone apart from a refused one', () => {
    const c = conversation().send({ type: 'mic.refused', missing: true, reason: 'No microphone was found.' });
    expect(c.context.typing).toBe('no-microphone');
  });

  it('turns a recogniser that is not allowed into typing, and lets the person retry by unmuting', () => {
    const c = conversation().send({ type: 'recogniser.failed', error: 'not-allowed' });
    expect(c.context.typing).toBe('refused');
    expect(c.context.problem?.kind).toBe('recogniser');
    expect(c.recogniserOn).toBe(false);
    c.send({ type: 'mic.unmute' });
    expect(c.context.typing).toBeNull();
    expect(c.context.problem).toBeNull();
    expect(c.recogniserOn).toBe(true);
  });

  it('turns a recogniser with no capture device into typing for want of a microphone', () => {
    const c = conversation().send({ type: 'recogniser.failed', error: 'audio-capture' });
    expect(c.context.typing).toBe('no-microphone');
  });

  it('ignores mute and refusal in a browser that cannot listen anyway', () => {
    const c = conversation({ recogniser: false });
    c.send({ type: 'mic.mute' }).send({ type: 'mic.refused', missing: false, reason: 'denied' });
    expect(c.context.typing).toBe('unsupported');
    expect(c.context.problem).toBeNull();
  });

  it('keeps the problem when unmuting a microphone that was never muted', () => {
    const c = conversation().types('Hi.').answerFails('The model is busy.');
    c.send({ type: 'mic.unmute' });
    expect(c.context.problem).toEqual({ kind: 'answer', reason: 'The model is busy.' });
  });
});
