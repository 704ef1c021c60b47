import { describe, expect, it } from 'vitest';
import { BenchArgsError, parseBenchArgs } from '../helpers/benchOptions';

describe('parseBenchArgs', () => {
  it('takes the word after --clips as its folder, not as a benchmark name', () => {
    expect(parseBenchArgs(['turn-taking', '--clips', 'my/clips'])).toEqual({ names: ['turn-taking'], options: { clips: 'my/clips' } });
  });

  it('takes --clips=DIR the same way', () => {
    expect(parseBenchArgs(['--clips=a=b', 'barge-in'])).toEqual({ names: ['barge-in'], options: { clips: 'a=b' } });
  });

  it('reads names alone as before', () => {
    expect(parseBenchArgs(['barge-in', 'echo-gate'])).toEqual({ names: ['barge-in', 'echo-gate'], options: {} });
  });

  it('refuses --clips with no folder after it, saying what to write', () => {
    expect(() => parseBenchArgs(['turn-taking', '--clips'])).toThrow(new BenchArgsError('--clips needs a value: --clips DIR.'));
    expect(() => parseBenchArgs(['--clips', '--other'])).toThrow(BenchArgsError);
  });

  it('refuses a flag it does not know rather than ignoring it', () => {
    expect(() => parseBenchArgs(['--clip', 'x'])).toThrow(/No bench option --clip; the options are --clips/);
  });
});
