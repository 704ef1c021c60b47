import { describe, expect, it } from 'vitest';
import { BenchArgsError, parseBenchArgs } from '../helpers/benchOptions';

describe('parseBenchArgs', () => {
  it('takes the word after --clips as its folder, not as a benchmark name', () => {
    expect(parseBenchArgs(['turn-taking', '--clips', 'my/clips'])).toEqual({ names: ['turn-taking'], options: { clips: 'my/clips' }, help: false });
  });

  it('takes --clips=DIR the same way', () => {
    expect(parseBenchArgs(['--clips=a=b', 'barge-in'])).toEqual({ names: ['barge-in'], options: { clips: 'a=b' }, help: false });
  });

  it('reads names alone as before', () => {
    expect(parseBenchArgs(['barge-in', 'echo-gate'])).toEqual({ names: ['barge-in', 'echo-gate'], options: {}, help: false });
  });

  it('reads --load N as a number of busy processes, 0 included', () => {
    expect(parseBenchArgs(['barge-in', '--load', '2']).options).toEqual({ load: 2 });
    expect(parseBenchArgs(['--load=0', 'turn-taking'])).toEqual({ names: ['turn-taking'], options: { load: 0 }, help: false });
  });

  it('refuses a --load that is not a whole number of processes, or more than it will start', () => {
    for (const bad of ['-1', '1.5', 'two', '17']) {
      expect(() => parseBenchArgs([`--load=${bad}`])).toThrow(BenchArgsError);
    }
    expect(() => parseBenchArgs(['--load', 'two'])).toThrow('--load takes a whole number of busy processes from 0 to 16, not two: --load 2.');
  });

  it('reads --leaks as a list of leak levels, with the other options', () => {
    expect(parseBenchArgs(['turn-taking', '--leaks', '0.15,0.35, .55', '--load', '2', '--clips', 'x'])).toEqual({
      names: ['turn-taking'],
      options: { leaks: [0.15, 0.35, 0.55], load: 2, clips: 'x' },
      help: false,
    });
    expect(parseBenchArgs(['--leaks=1']).options).toEqual({ leaks: [1] });
  });

  it('refuses a leak level of 0, over 1, or not a number, naming it', () => {
    expect(() => parseBenchArgs(['--leaks', '0.2,1.5'])).toThrow('--leaks takes leak levels over 0 and at most 1, separated by commas; "1.5" is not one: --leaks 0.15,0.35,0.55.');
    expect(() => parseBenchArgs(['--leaks', '0'])).toThrow(/"0" is not one/);
    expect(() => parseBenchArgs(['--leaks', '0.2,,0.3'])).toThrow(/"" is not one/);
    expect(() => parseBenchArgs(['--leaks', 'loud'])).toThrow(BenchArgsError);
  });

  it('reads --short as the short form, taking no value', () => {
    expect(parseBenchArgs(['scale-out', '--short'])).toEqual({ names: ['scale-out'], options: { short: true }, help: false });
    expect(parseBenchArgs(['--short', 'scale-out', '--load', '1'])).toEqual({ names: ['scale-out'], options: { short: true, load: 1 }, help: false });
  });

  it('takes --help (or -h) as asking for help, whatever else is on the line', () => {
    expect(parseBenchArgs(['--help'])).toEqual({ names: [], options: {}, help: true });
    expect(parseBenchArgs(['barge-in', '-h', '--load', '1'])).toEqual({ names: ['barge-in'], options: { load: 1 }, help: true });
  });

  it('refuses a flag with no value after it, saying what to write', () => {
    expect(() => parseBenchArgs(['turn-taking', '--clips'])).toThrow(new BenchArgsError('--clips needs a value: --clips DIR.'));
    expect(() => parseBenchArgs(['--clips', '--other'])).toThrow(BenchArgsError);
    expect(() => parseBenchArgs(['--load'])).toThrow('--load needs a value: --load N.');
    expect(() => parseBenchArgs(['--leaks='])).toThrow('--leaks needs a value: --leaks 0.15,0.35,0.55.');
  });

  it('refuses a flag it does not know rather than ignoring it', () => {
    expect(() => parseBenchArgs(['--clip', 'x'])).toThrow(/No bench option --clip; the options are --clips DIR, --load N, --leaks 0.15,0.35,0.55, --short, --help/);
  });
});
