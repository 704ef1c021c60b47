import { describe, expect, it } from 'vitest';
import { DECLARED_TARGETS, figureAt, meets, summaryTable } from '../helpers/benchSummary';

const AT = new Date('2026-12-01T10:00:00.000Z');

describe('the benchmark summary', () => {
  it('puts each figure beside its target and says whether it was met, reading dotted figures', () => {
    const table = summaryTable(
      [
        { name: 'turn', result: { bench: 'turn', runs: 24, p50Ms: 212.5 } },
        { name: 'recall-quality', result: { bench: 'recall-quality', default: { top3: 0.7, falseRecall: 0.04 } } },
      ],
      (name) => (name === 'turn' ? [{ figure: 'p50Ms', atMost: 300, what: 'final transcript → first sample' }] : DECLARED_TARGETS[name]),
      AT,
    );
    expect(table).toContain('| turn | p50Ms (final transcript → first sample) | 212.5 | ≤ 300 | ✓ |');
    expect(table).toContain('| recall-quality | default.top3 (the right memory among the first three) | 0.7 | ≥ 0.8 | ✗ |');
    expect(table).toContain('| recall-quality | default.falseRecall (a memory recalled for an unrelated question) | 0.04 | ≤ 0.05 | ✓ |');
    expect(table).toContain('2 targets met, 1 not.');
    expect(table).toContain('Run 2026-12-01T10:00:00.000Z');
  });

  it('notes a benchmark that failed, a figure that is missing, and one with no target', () => {
    const table = summaryTable(
      [
        { name: 'door', error: 'PGlite would not open | twice' },
        { name: 'bundle', result: { bench: 'bundle' } },
        { name: 'echo-gate', result: { bench: 'echo-gate', turns: 1200, falseBargeIns: 0, byLeak: [] } },
      ],
      (name) => (name === 'bundle' ? [{ figure: 'initialJsGzipKB', atMost: 150 }] : undefined),
      AT,
    );
    expect(table).toContain('| door | — | failed: PGlite would not open \\| twice | — | ✗ |');
    expect(table).toContain('| bundle | initialJsGzipKB | missing | ≤ 150 | ✗ |');
    expect(table).toContain('| echo-gate | turns 1200, falseBargeIns 0 | | no target | |');
  });

  it('judges bounds on either side, and nothing without a value', () => {
    expect(meets({ figure: 'x', atLeast: 1, atMost: 2 }, 1.5)).toBe(true);
    expect(meets({ figure: 'x', atLeast: 1 }, 0.5)).toBe(false);
    expect(meets({ figure: 'x', atMost: 1 }, undefined)).toBeUndefined();
    expect(figureAt({ a: { b: 3 } }, 'a.b')).toBe(3);
    expect(figureAt({ a: { b: '3' } }, 'a.b')).toBeUndefined();
  });
});
