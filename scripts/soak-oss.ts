/**
 * `npm run soak:oss`: the long matrix of the OSS compare-and-swap's adversarial suite (issue 23;
 * docs/state-store.md "How it is tested"): every store variant × many seeds × several shapes (2–4
 * instances, 1–2 writers each), random schedules with stalls past KEEP commits and past the hold,
 * frozen requests and answers, lost, dropped and late-landing creates, concurrent prunes, clock
 * jumps and OSS servers skewed up to the stated bound (test/support/oss-adversary.ts). Prints the
 * counts per variant and every violation with the seed that replays it; exits 1 on any violation.
 *
 *   npm run soak:oss                              # 64 seeds per variant
 *   npm run soak:oss -- --seeds 200               # more
 *   npm run soak:oss -- --seed 17 --variant production   # replay one
 *   npm run soak:oss -- --skew 30000              # servers off by more than the bound (expect violations)
 */
import { parseArgs } from 'node:util';
import { runAdversary, type StoreVariant } from '../test/support/oss-adversary.js';
import { violations } from '../test/support/oss-history-checks.js';
import { OssWorld } from '../test/support/oss-world.js';

const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '64' }, seed: { type: 'string' }, variant: { type: 'string' }, skew: { type: 'string' }, saves: { type: 'string', default: '200' } },
});
const variants: StoreVariant[] = values.variant ? [values.variant as StoreVariant] : ['production', 'verify-every-save', 'no-hold'];
const seeds = values.seed ? [Number(values.seed)] : Array.from({ length: Number(values.seeds) }, (_, index) => index + 1);
const shapes = [
  { instances: 2, writersPerInstance: 1 },
  { instances: 3, writersPerInstance: 2 },
  { instances: 4, writersPerInstance: 1 },
];

const world = await OssWorld.start();
let failed = false;
const started = Date.now();
for (const variant of variants) {
  const totals = { runs: 0, saves: 0, acknowledged: 0, conflicts: 0, unavailable: 0, loads: 0, requests: 0, violations: 0 };
  for (const seed of seeds) {
    const shape = shapes[seed % shapes.length] ?? { instances: 2, writersPerInstance: 1 };
    const config = { seed, variant, ...shape, savesPerWriter: Number(values.saves), faults: true, ...(values.skew ? { maxSkewMs: Number(values.skew) } : {}) };
    const run = await runAdversary(world, config);
    const found = violations(run.history, run.finalEntries);
    totals.runs += 1;
    totals.saves += run.history.saves.length;
    totals.acknowledged += run.history.saves.filter((save) => save.outcome === 'acknowledged').length;
    totals.conflicts += run.history.saves.filter((save) => save.outcome === 'conflict').length;
    totals.unavailable += run.history.saves.filter((save) => save.outcome === 'unavailable').length;
    totals.loads += run.history.loads.length;
    totals.requests += run.requests;
    totals.violations += found.length;
    if (found.length > 0) {
      failed = true;
      process.stdout.write(`VIOLATION ${variant} seed ${seed} (${shape.instances} instances × ${shape.writersPerInstance} writers):\n  ${found.slice(0, 5).join('\n  ')}\n`);
    }
  }
  const perSave = totals.acknowledged > 0 ? (totals.requests / totals.acknowledged).toFixed(2) : '—';
  process.stdout.write(`${JSON.stringify({ variant, ...totals, requestsPerAcknowledgedSave: Number(perSave) })}\n`);
}
process.stdout.write(`${failed ? 'violations found' : 'no violation'} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
await world.close();
process.exit(failed ? 1 : 0);
