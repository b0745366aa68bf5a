/**
 * The reattach explorer's variants and its runner (issue 26): seeded executions (explore.ts), a few at
 * a time, each in a world of its own (reattach-world.ts), each judged by the oracle (oracle.ts) and
 * its whole store searched for secrets. Used by test/reattach-explorer/explorer.test.ts (a few seeds) and
 * `npm run soak:reattach` (the long matrix).
 */
import type { ReattachWorld, StoreKind, WorldOptions } from '../support/reattach-world.js';
import { ReattachWorld as World } from '../support/reattach-world.js';
import { type ExecutionOutcome, type ExplorerSettings, exploreExecution } from './explore.js';
import { judge, secretViolations, type Violation } from './oracle.js';

export interface Variant {
  name: string;
  store: StoreKind;
  settings: ExplorerSettings;
  /** Due entries that always fail, at the head of the due list (WorldOptions.poisonDue). */
  poisonDue?: number;
}

const BASE: ExplorerSettings = { long: 0, history: 'perDelta', journalFaults: true, instanceFaults: true, subscribers: 3 };

export const VARIANTS: Variant[] = [
  { name: 'file', store: 'file', settings: BASE },
  { name: 'file-growing-history', store: 'file', settings: { ...BASE, history: 'growing' } },
  { name: 'oss', store: 'oss', settings: { ...BASE, history: 'mixed' } },
  // Every execution answers past the journal's cap (lib/http/run-log.ts JOURNAL_MAX_BYTES, 16 MiB; no knob), without journal faults: what goes wrong is the cap's.
  { name: 'file-long', store: 'file', settings: { ...BASE, long: 1, journalFaults: false, subscribers: 2 } },
  { name: 'file-poisoned-due-list', store: 'file', settings: { ...BASE, fates: ['abandon'] }, poisonDue: 25 },
];

/** Short leases and grace, so a killed or frozen producer is taken over, and a detached run swept, within seconds. */
export const WORLD_TIMING: Omit<WorldOptions, 'store'> = { instances: 3, leaseTtlMs: 1_500, leaseRenewMs: 400, detachGraceMs: 1_500 };

export interface VariantReport {
  variant: string;
  executions: number;
  runs: number;
  readers: number;
  reattaches: number;
  takeovers: number;
  clearErrors: number;
  documentedLosses: number;
  violations: Violation[];
}

export interface RunOptions {
  /** Executions explored at once, each in a world of its own. */
  concurrency: number;
  /** Called after each execution, before its world closes (progress, replay details). */
  onExecution?: (outcome: ExecutionOutcome, violations: Violation[], world: ReattachWorld) => void;
}

/**
 * Explores every seed in a world of its own — its instances, store and kernel — so that what one
 * execution's faults do (a killed instance, a poisoned due list) never reaches another's, and a seed
 * replays alone as it ran in the matrix (its choices exactly; the timing of real sockets as it comes).
 */
export async function runVariant(variant: Variant, seeds: readonly number[], options: RunOptions): Promise<VariantReport> {
  const report: VariantReport = { variant: variant.name, executions: 0, runs: 0, readers: 0, reattaches: 0, takeovers: 0, clearErrors: 0, documentedLosses: 0, violations: [] };
  const queue = [...seeds];
  const worker = async (): Promise<void> => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      const world: ReattachWorld = await World.start({ store: variant.store, ...WORLD_TIMING, ...(variant.poisonDue ? { poisonDue: variant.poisonDue } : {}) });
      try {
        const outcome = await exploreExecution(world, seed, variant.settings);
        const judgement = await judge(outcome, world);
        const violations = [...judgement.violations, ...(await secretViolations(world)).map((violation) => ({ ...violation, seed }))];
        report.executions += 1;
        report.runs += judgement.runs;
        report.readers += judgement.readers;
        report.reattaches += judgement.reattaches;
        report.takeovers += judgement.takeovers;
        report.clearErrors += judgement.clearErrors;
        report.documentedLosses += judgement.documentedLosses;
        report.violations.push(...violations);
        options.onExecution?.(outcome, violations, world);
      } finally {
        await world.close();
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  return report;
}

/** Violations counted by kind, each with the seeds that found it. */
export function byKind(violations: readonly Violation[]): Map<string, { count: number; seeds: number[]; example: Violation }> {
  const kinds = new Map<string, { count: number; seeds: number[]; example: Violation }>();
  for (const violation of violations) {
    const entry = kinds.get(violation.kind) ?? { count: 0, seeds: [], example: violation };
    entry.count += 1;
    if (!entry.seeds.includes(violation.seed)) entry.seeds.push(violation.seed);
    kinds.set(violation.kind, entry);
  }
  return kinds;
}
