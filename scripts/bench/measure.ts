/** Small helpers for benchmarks: repeated timing, and the ratio form every result is reported in. */
export interface Comparison {
  name: string;
  unit: string;
  /** The adapter's figure. */
  value: number;
  /** The same work without the adapter (or its nearest bare equivalent), measured in the same run. */
  baseline: number;
  /** value / baseline: 1 means no overhead. */
  ratio: number;
  note: string;
}

export function compare(name: string, unit: string, value: number, baseline: number, note: string): Comparison {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { name, unit, value: round(value), baseline: round(baseline), ratio: round(value / baseline), note };
}

export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The `fraction` quantile (0.99 = p99) of `samples`, nearest rank. */
export function percentile(samples: number[], fraction: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/** Median milliseconds of `runs` calls after `warmup` unmeasured ones. */
export async function timeMedian(runs: number, warmup: number, body: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < warmup; i += 1) await body();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await body();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** Milliseconds of each run of `a` and of `b`, run in turn (a b a b …) after `warmup` unmeasured pairs. */
export async function pairedSamples(runs: number, warmup: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  for (let i = 0; i < warmup; i += 1) {
    await a();
    await b();
  }
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    let started = performance.now();
    await a();
    first.push(performance.now() - started);
    started = performance.now();
    await b();
    second.push(performance.now() - started);
  }
  return [first, second];
}

/**
 * How far the ratio moves from pair to pair: the middle half (first to third quartile) of the ratios
 * of runs made one after the other, for the note of a figure whose verdict the machine's noise can
 * turn (docs/architecture.md §9.6). `values[i]` and `baselines[i]` are one pair.
 */
export function pairSpread(values: readonly number[], baselines: readonly number[]): string {
  if (values.length === 0 || values.length !== baselines.length) throw new Error('pairSpread needs as many values as baselines, at least one');
  const ratios = values.map((value, i) => value / (baselines[i] as number));
  const quartile = (fraction: number): string => percentile(ratios, fraction).toFixed(2);
  return `pairs' ratios ${quartile(0.25)}–${quartile(0.75)}×, middle half`;
}
