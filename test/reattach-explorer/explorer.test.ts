/**
 * The reattach explorer in `npm test` (issue 26; docs/protocol.md §6.15): a handful of seeds per
 * variant — among them every seed that ever found a violation — through the same world, schedules
 * and oracle as `npm run soak:reattach` (test/reattach-explorer/matrix.ts). Several adapter
 * instances on one file store or one OSS bucket; producers killed, frozen, detached or handed over;
 * journal faults; racing sweepers; readers cut at every kind of record and reattached on random
 * instances. Every reader must get every event exactly once, or a clear documented error.
 */
import { describe, expect, it } from 'vitest';
import { runVariant, VARIANTS } from './matrix.js';

/** Seeds that found violations before the fixes (npm run soak:reattach), and a few calm ones. */
const SEEDS: Record<string, number[]> = {
  file: [3, 5, 9, 10, 12, 31, 33, 69],
  'file-growing-history': [2, 5, 7, 9, 12],
  oss: [1, 3, 6, 10, 26, 42, 72],
  'file-long': [3, 4, 42, 81, 84],
};

describe('the reattach explorer', () => {
  for (const variant of VARIANTS.filter((candidate) => SEEDS[candidate.name])) {
    const seeds = SEEDS[variant.name] as number[];
    it(`${variant.name}, seeds ${seeds.join(', ')}: every reader gets every event exactly once, or a clear error`, { timeout: 120_000 }, async () => {
      // Four executions at once: beside npm test's other files, more turns a 2-core machine's schedules into timeouts (PITFALLS).
      const report = await runVariant(variant, seeds, { concurrency: Math.min(seeds.length, 4) });
      expect(report.violations.map((violation) => `seed ${violation.seed} ${violation.kind}${violation.reader ? ` (${violation.reader})` : ''}: ${violation.detail}`)).toEqual([]);
      // The schedules did what they are for.
      expect(report.runs).toBeGreaterThanOrEqual(seeds.length);
      expect(report.reattaches).toBeGreaterThan(seeds.length);
    });
  }
});
