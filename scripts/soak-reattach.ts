/**
 * `npm run soak:reattach`: the reattach explorer's long matrix (issue 26; docs/protocol.md §6.15;
 * test/reattach-explorer): every variant × many seeded executions — several instances on one file
 * store or one OSS bucket, producers killed, frozen, detached or handed over, journal writes that
 * fail, answer late or land after a timeout, sweepers racing, readers that cut at every kind of
 * record and reattach on random instances, interrupt → resume cycles with sweeps from the future,
 * long answers past the journal's cap — each judged by the exactly-once oracle. Prints a table per
 * variant (executions, runs, readers, reattaches, takeovers, clear errors, violations) and every
 * violation kind with the seeds that found it; exits 1 on any violation.
 *
 *   npm run soak:reattach                          # RUNS=40 executions per variant (seeds 1..40)
 *   RUNS=200 npm run soak:reattach                 # more
 *   SEEDS=17,23 VARIANT=oss npm run soak:reattach  # replay seeds on one variant
 *   CONCURRENCY=4 VERBOSE=1 npm run soak:reattach  # executions at once; every violation printed
 *   FATES=kill,freeze npm run soak:reattach        # only these producer fates (calm, detach, kill, freeze, handover, abandon)
 *   DUMP=/tmp/rx npm run soak:reattach             # every execution with a violation as JSON there (readers' segments, its log lines)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Fate } from '../test/reattach-explorer/explore.js';
import { byKind, runVariant, VARIANTS } from '../test/reattach-explorer/matrix.js';

const env = process.env;
const seeds = env['SEEDS'] ? env['SEEDS'].split(',').map(Number) : Array.from({ length: Number(env['RUNS'] ?? '40') }, (_, index) => index + 1);
const fates = env['FATES'] ? (env['FATES'].split(',') as Fate[]) : undefined;
const variants = (env['VARIANT'] ? VARIANTS.filter((variant) => env['VARIANT']?.split(',').includes(variant.name)) : VARIANTS).map((variant) =>
  fates ? { ...variant, settings: { ...variant.settings, fates } } : variant,
);
const concurrency = Number(env['CONCURRENCY'] ?? '3');
const verbose = env['VERBOSE'] === '1';
/** DUMP=<dir>: every execution with a violation written there as JSON (its plan, its readers' segments, the instances' log lines of its thread). */
const dump = env['DUMP'];
if (dump) mkdirSync(dump, { recursive: true });

const started = Date.now();
const rows: string[][] = [['variant', 'executions', 'runs', 'readers', 'reattaches', 'takeovers', 'clear errors', 'documented losses', 'violations', 'seeds with violations']];
let failed = false;
for (const variant of variants) {
  const variantSeeds = variant.name === 'file-long' && !env['SEEDS'] ? seeds.slice(0, Math.max(4, Math.ceil(seeds.length / 5))) : seeds;
  const report = await runVariant(variant, variantSeeds, {
    concurrency: variant.name === 'file-long' ? 1 : concurrency,
    onExecution: (outcome, violations, world) => {
      process.stdout.write(violations.length > 0 ? 'x' : '.');
      if (dump && violations.length > 0) {
        const logs = world.instances.flatMap((instance) => instance.logs.filter((line) => line.includes(outcome.threadId)).map((line) => `${instance.name} ${line}`));
        const readers = outcome.readers.map((reader) => ({
          ...reader,
          segments: reader.segments.map((segment) => ({ ...segment, records: segment.records.map((record) => `${record.id} ${record.data.slice(0, 160)}`) })),
        }));
        // What reached the kernel for this task (a call a killed instance made hangs at its gate and is not here); no headers.
        const kernelCalls = world.kernel.calls
          .filter((call) => outcome.taskId !== undefined && JSON.stringify(call.params ?? null).includes(outcome.taskId))
          .map((call) => ({ method: call.method, params: JSON.stringify(call.params ?? null).slice(0, 400) }));
        writeFileSync(
          join(dump, `${variant.name}-${outcome.seed}.json`),
          JSON.stringify({ ...outcome, references: undefined, journalRunStarts: [...outcome.journalRunStarts], readers, violations, logs, kernelCalls }, null, 1),
        );
      }
      if (verbose)
        for (const violation of violations)
          process.stdout.write(`\n  ${variant.name} seed ${violation.seed} [${outcome.fate}] ${violation.kind} ${violation.reader ?? ''}: ${violation.detail}\n`);
    },
  });
  process.stdout.write('\n');
  const seedsFound = [...new Set(report.violations.map((violation) => violation.seed))].sort((a, b) => a - b);
  rows.push([
    variant.name,
    String(report.executions),
    String(report.runs),
    String(report.readers),
    String(report.reattaches),
    String(report.takeovers),
    String(report.clearErrors),
    String(report.documentedLosses),
    String(report.violations.length),
    seedsFound.length > 0 ? `${seedsFound.length}: ${seedsFound.slice(0, 12).join(',')}${seedsFound.length > 12 ? ',…' : ''}` : '—',
  ]);
  if (report.violations.length > 0) failed = true;
  process.stdout.write(`${variant.name}: ${report.violations.length} violations\n`);
  for (const [kind, entry] of [...byKind(report.violations)].sort((a, b) => b[1].count - a[1].count)) {
    process.stdout.write(
      `  ${kind}: ${entry.count} (seeds ${entry.seeds.slice(0, 10).join(',')}${entry.seeds.length > 10 ? ',…' : ''})\n    e.g. seed ${entry.example.seed}${entry.example.reader ? ` ${entry.example.reader}` : ''}: ${entry.example.detail.slice(0, 300)}\n`,
    );
  }
}
const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
for (const [index, row] of rows.entries()) {
  process.stdout.write(`| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |\n`);
  if (index === 0) process.stdout.write(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|\n`);
}
process.stdout.write(`${failed ? 'violations found' : 'no violation'} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(failed ? 1 : 0);
