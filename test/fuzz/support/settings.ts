/**
 * How long the fuzz suite runs (docs/architecture.md §9): seeded and small by default so CI runs it
 * in seconds; `npm run fuzz` (scripts/fuzz.ts) passes a fresh seed and many more runs. A failure
 * prints fast-check's seed and path; `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npx vitest run test/fuzz`
 * replays it.
 */
import type fc from 'fast-check';

const DEFAULT_SEED = 20_261_201;
const DEFAULT_RUNS = 25;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return value;
}

export const FUZZ_SEED = positiveInteger('FUZZ_SEED', DEFAULT_SEED);
export const FUZZ_RUNS = Math.max(1, positiveInteger('FUZZ_RUNS', DEFAULT_RUNS));

/** fast-check parameters for a property whose runs cost `scale` times an ordinary one (fewer runs). */
export function fuzzParameters(scale = 1): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: runsFor(scale) };
}

export function runsFor(scale = 1): number {
  return Math.max(2, Math.ceil(FUZZ_RUNS / scale));
}

/**
 * A test timeout for `runs` runs of about `msPerRun` each, with room for shrinking a failure:
 * the default 20 s would cut a long `npm run fuzz` campaign short.
 */
export function timeoutFor(runs: number, msPerRun: number): number {
  return Math.max(20_000, runs * msPerRun * 3);
}
