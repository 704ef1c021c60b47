import { describe, expect, it } from 'vitest';
import { loadFailureOf, VoiceLoadError } from '../../../common/voice/loadFailure';

describe('a failed load as the page reads it', () => {
  it('carries its kind as the message, a code and not a sentence, so it survives comlink', () => {
    const error = new VoiceLoadError('busy', { cause: new Error('HTTP 503') });
    expect(error.message).toBe('busy');
    expect(loadFailureOf(error)).toBe('busy');
    // Comlink rebuilds a thrown error as a plain Error with the name and message it had.
    expect(loadFailureOf(Object.assign(new Error('unreachable'), { name: 'VoiceLoadError' }))).toBe('unreachable');
  });

  it('reads anything else as failed: another error, a kind it does not know, or no error at all', () => {
    expect(loadFailureOf(new Error('busy'))).toBe('failed');
    expect(loadFailureOf(Object.assign(new Error('on fire'), { name: 'VoiceLoadError' }))).toBe('failed');
    expect(loadFailureOf('unreachable')).toBe('failed');
  });
});
