/**
 * `npm run bench`: speed, memory, bundle size and OSS requests, each against a baseline measured in
 * the same run (never as timing assertions in tests), written to docs/benchmarks.md with its chart
 * docs/images/benchmarks.svg (scripts/bench/report.ts), and printed.
 *
 *   npm run bench [-- --json] [-- --only translation,turns,relay,journal,takeover,auth,kernel,fc,streams,oss] [-- --no-write]
 *
 * `streams` is the live-stream figure alone (it is also part of `fc`). `kernel` measures the adapter
 * in front of the real iac-code kernel when it is set up on this machine (scripts/bench/real-kernel.ts).
 *
 * The docs are rewritten only by a whole run (no --only). The figures before issue 13's work are
 * kept in scripts/bench/before.json, so the report shows before → now.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FileThreadStore } from '../lib/adapters/file-store/file-store.js';
import { errorSummary } from '../lib/core/error-fields.js';
import { benchAuthentication } from './bench/authentication.js';
import { benchFunctionCompute, benchFunctionLiveStreams } from './bench/function-compute.js';
import { benchJournalRelay, benchJournalWrites, withoutJournal } from './bench/journal.js';
import { startBenchStack } from './bench/local-stack.js';
import type { Comparison } from './bench/measure.js';
import { benchRealKernel } from './bench/real-kernel.js';
import { benchRelay } from './bench/relay.js';
import { type BenchReport, type Figure, meets, type OssFigure, renderMarkdown, renderSvg, type SizeFigure, type Target } from './bench/report.js';
import { benchTakeover } from './bench/takeover.js';
import { benchTranslation } from './bench/translation.js';
import { benchTurns } from './bench/turns.js';
import { PROJECT_ROOT } from './build.js';

interface Before {
  note: string;
  figures: Record<string, number>;
  sizes: Record<string, number>;
  oss: Record<string, { total: number; roundTrips: number }>;
}

/** Issue 13's targets, by the start of a figure's name. */
const TARGETS: Array<[prefix: string, target: Target]> = [
  ['cold start', { kind: 'ratio', max: 1.3 }],
  ['normal turn latency', { kind: 'ratio', max: 2 }],
  ['relay with the event journal', { kind: 'ratio', max: 1.03 }],
  ['journal writes per second', { kind: 'value', max: 1 }],
  ['relay', { kind: 'ratio', max: 1.05 }],
  ['latency per event', { kind: 'excess', max: 1 }],
  ['RSS per idle live stream', { kind: 'value', max: 100 }],
  // Issue 26: a takeover reads the journal once and only the task history it has not seen.
  ['takeover: journal bytes read', { kind: 'ratio', max: 1.05 }],
];

/** Issue 13's OSS targets: requests per operation; round trips before RUN_STARTED for admissions. */
const OSS_TARGETS: Record<string, { requests?: number; roundTrips?: number }> = {
  'admission, existing thread': { roundTrips: 2 },
  'normal turn, existing thread (hello)': { requests: 5 },
  'interrupt (permission run, new thread)': { requests: 5 },
  'resume (answering the interrupt)': { requests: 5 },
};

function table(rows: Figure[]): string {
  return rows
    .map((row) => {
      const met = meets(row);
      return `${row.name.padEnd(52)} ${String(row.value).padStart(10)} ${row.unit.padEnd(3)} baseline ${String(row.baseline).padStart(10)}  ratio ${String(row.ratio).padStart(7)}${met === undefined ? '' : met ? '  met' : '  NOT MET'}  (${row.note})`;
    })
    .join('\n');
}

function withTarget(row: Comparison, before: Before | undefined): Figure {
  const target = TARGETS.find(([prefix]) => row.name.startsWith(prefix))?.[1];
  const beforeRatio = before?.figures[row.name];
  return { ...row, ...(target ? { target } : {}), ...(beforeRatio === undefined ? {} : { beforeRatio }) };
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
  const write = !only && !process.argv.includes('--no-write');
  const wanted = (name: string) => !only || only.has(name);
  const before = JSON.parse(await readFile(join(PROJECT_ROOT, 'scripts', 'bench', 'before.json'), 'utf8')) as Before;

  const rows: Comparison[] = [];
  const sizes: SizeFigure[] = [];
  const oss: OssFigure[] = [];
  const notes: string[] = [];
  let functionNode: string | undefined;
  if (wanted('translation')) rows.push(await benchTranslation());
  if (wanted('turns')) rows.push(...(await benchTurns()));
  if (wanted('relay')) {
    const stack = await startBenchStack();
    try {
      const relay = await benchRelay(stack);
      rows.push(relay.throughput, relay.latency);
    } finally {
      await stack.close();
    }
  }
  if (wanted('journal')) {
    // Issue 19's budget for the event journal (docs/protocol.md §6.15).
    const journaled = await startBenchStack();
    const bare = await startBenchStack(withoutJournal(new FileThreadStore(await mkdtemp(join(tmpdir(), 'agui-bench-')))));
    try {
      rows.push(await benchJournalRelay(journaled, bare));
    } finally {
      await Promise.all([journaled.close(), bare.close()]);
    }
    rows.push(await benchJournalWrites());
  }
  if (wanted('takeover')) rows.push(...(await benchTakeover()));
  // Issue 27: a person's token against the shared token (docs/protocol.md §1.2).
  if (wanted('auth')) rows.push(await benchAuthentication());
  if (wanted('kernel')) {
    const kernel = await benchRealKernel();
    rows.push(...kernel.figures);
    notes.push(kernel.note);
  }
  if (wanted('fc')) {
    const fc = await benchFunctionCompute();
    functionNode = fc.node.replace(/^v/, '');
    rows.push(fc.coldStart);
    if (fc.liveStreams) {
      rows.push(fc.liveStreams.rss);
      notes.push(`${fc.liveStreams.streams.toLocaleString('en')} concurrent live streams on one instance: ${fc.liveStreams.lost} lost an event.`);
    }
    for (const size of fc.sizes) sizes.push({ ...size, ...(before.sizes[size.name] === undefined ? {} : { beforeBytes: before.sizes[size.name] }) });
    notes.push(...fc.notes);
  }
  if (only?.has('streams') && !only.has('fc')) {
    const streams = await benchFunctionLiveStreams();
    rows.push(streams.rss);
    notes.push(`${streams.streams.toLocaleString('en')} concurrent live streams on one instance: ${streams.lost} lost an event.`);
  }
  if (wanted('oss')) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/bench-oss.ts'], { cwd: PROJECT_ROOT, maxBuffer: 16 * 1024 * 1024 });
    const measured = (JSON.parse(stdout) as { ossRequests: Record<string, { total: number; roundTrips: number }> }).ossRequests;
    for (const [operation, counts] of Object.entries(measured)) {
      const was = before.oss[operation];
      const target = OSS_TARGETS[operation];
      oss.push({
        operation,
        requests: counts.total,
        roundTrips: counts.roundTrips,
        ...(was ? { beforeRequests: was.total, beforeRoundTrips: was.roundTrips } : {}),
        ...(target?.requests === undefined ? {} : { targetRequests: target.requests }),
        ...(target?.roundTrips === undefined ? {} : { targetRoundTrips: target.roundTrips }),
      });
    }
  }

  const report: BenchReport = {
    generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    machine: {
      os: `${type()} ${release()}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
      memoryGiB: totalmem() / 1024 ** 3,
      loadAverage: loadavg(),
    },
    node: process.version.replace(/^v/, ''),
    functionNode,
    figures: rows.map((row) => withTarget(row, before)),
    sizes,
    oss,
    notes: [
      ...notes,
      `Free memory at the end: ${(freemem() / 1024 ** 3).toFixed(1)} GiB. ${before.note}`,
      'Where a target is not met, what the remaining cost is and which guarantee it buys: [architecture.md §9.6](architecture.md#96-benchmarks).',
    ],
  };
  if (write) {
    const markdown = join(PROJECT_ROOT, 'docs', 'benchmarks.md');
    await writeFile(markdown, renderMarkdown(report));
    await writeFile(join(PROJECT_ROOT, 'docs', 'images', 'benchmarks.svg'), renderSvg(report));
    // The project's formatter pads the tables (npm run lint checks Markdown too).
    await promisify(execFile)(join(PROJECT_ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', markdown], { cwd: PROJECT_ROOT });
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${table(report.figures)}\n`);
  for (const size of sizes) process.stdout.write(`${size.name}: ${size.bytes} bytes${size.beforeBytes === undefined ? '' : ` (before ${size.beforeBytes})`}\n`);
  for (const row of oss)
    process.stdout.write(
      `OSS ${row.operation}: ${row.requests} requests, ${row.roundTrips} round trips${row.beforeRequests === undefined ? '' : ` (before ${row.beforeRequests} / ${row.beforeRoundTrips})`}\n`,
    );
  if (write) process.stdout.write('written: docs/benchmarks.md, docs/images/benchmarks.svg\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error && error.stack ? error.stack : errorSummary(error)}\n`);
  process.exit(1);
});
