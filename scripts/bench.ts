/**
 * `npm run bench`: speed and memory, each reported as a ratio against a baseline measured in the
 * same run (never as timing assertions in tests). Prints a table and, with --json, one JSON
 * document.
 *
 *   npm run bench [-- --json] [-- --only translation,turns,fc,oss]
 *
 * OSS request counts (per admission, turn, interrupt, resume) come from scripts/bench-oss.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { benchFunctionCompute } from './bench/function-compute.js';
import type { Comparison } from './bench/measure.js';
import { benchTranslation } from './bench/translation.js';
import { benchTurns } from './bench/turns.js';

function table(rows: Comparison[]): string {
  const lines = rows.map(
    (row) =>
      `${row.name.padEnd(40)} ${String(row.value).padStart(10)} ${row.unit.padEnd(4)} baseline ${String(row.baseline).padStart(10)}  ratio ${String(row.ratio).padStart(7)}  (${row.note})`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
  const wanted = (name: string) => !only || only.has(name);
  const report: Record<string, unknown> = { node: process.version, platform: `${process.platform}-${process.arch}` };
  const rows: Comparison[] = [];
  if (wanted('translation')) rows.push(await benchTranslation());
  if (wanted('turns')) rows.push(...(await benchTurns()));
  if (wanted('fc')) {
    const fc = await benchFunctionCompute();
    rows.push(fc.coldStart);
    report['bundles'] = fc.bundles;
  }
  if (wanted('oss')) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/bench-oss.ts'], { maxBuffer: 16 * 1024 * 1024 });
    report['ossRequests'] = JSON.parse(stdout);
  }
  report['comparisons'] = rows;
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    process.stdout.write(`${table(rows)}\n`);
    if (report['bundles']) process.stdout.write(`bundles: ${JSON.stringify(report['bundles'])}\n`);
    if (report['ossRequests']) process.stdout.write(`OSS requests: ${JSON.stringify(report['ossRequests'])}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
