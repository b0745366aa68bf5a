/**
 * The spread a noisy benchmark figure reports beside its median (scripts/bench/measure.ts,
 * docs/architecture.md §9.6). Arithmetic only: no timing is measured here.
 */
import { describe, expect, it } from 'vitest';
import { pairSpread } from '../../scripts/bench/measure.js';

describe('the spread of paired runs', () => {
  it('is the middle half of the ratios of runs made one after the other, not of each side sorted apart', () => {
    // Sorted apart, both sides would look alike; pair by pair, one run was 4× its baseline and one 0.5×.
    expect(pairSpread([10, 20], [5, 40])).toBe("pairs' ratios 0.50–2.00×, middle half");
    expect(pairSpread([110, 100, 130, 120, 105, 150, 115, 125], [100, 100, 100, 100, 100, 100, 100, 100])).toBe("pairs' ratios 1.05–1.25×, middle half");
  });

  it('refuses runs that do not pair up', () => {
    expect(() => pairSpread([1, 2], [1])).toThrow(/as many values as baselines/);
    expect(() => pairSpread([], [])).toThrow(/at least one/);
  });
});
