/**
 * `npm run soak` (not in CI): the adapter under sustained load, as an operator would see it
 * (docs/architecture.md §9.6). The adapter runs as its own process (so its memory is its own)
 * against the A2A emulator, with the file store; then:
 *
 * 1. hold: H streams kept open at once (the `silence` scenario) — resident memory per live stream;
 * 2. mix: N streams across the scenarios (normal, tools, thinking, artifact, permission and
 *    pipeline with their resumes) — every stream must carry exactly the events it carries alone;
 * 3. disconnect storm: D long runs, all clients gone at once — every task must get CancelTask once
 *    the adapter's detach grace (5 s here) is over, from the sweeper;
 * 4. stalled bodies: S requests that send headers and a few bytes, then nothing — every one must
 *    be answered 408 and its socket closed;
 * and throughout, `/health` latency. Afterwards every thread document is read: no lease may be
 * left held, no task left running, no error logged.
 *
 *   npm run soak [-- --streams 600 --hold 300 --storm 300 --stalled 200 --rounds 1 --heap-mib 0 --json]
 *
 * `--rounds R` repeats the mix R times and prints the adapter's memory after each: a figure that
 * keeps climbing round after round points at a leak, one that levels off at V8's working size does
 * not. `--heap-mib M` caps the adapter's V8 heap (--max-old-space-size): with a leak the adapter
 * then dies and the soak fails, without one the garbage collector keeps it within the cap.
 *
 * Exit code 0 only when event loss, leases left, tasks left running, unanswered stalled bodies
 * and error lines are all 0.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { ASK_GRACE } from '../test/support/fixtures.js';
import { startSoakAdapter } from './soak/adapter.js';
import { runInput, type StreamOutcome, scenarioTurn, stalledBody, typeCounts } from './soak/streams.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : Number(process.env[`SOAK_${name.toUpperCase()}`] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer`);
  return value;
}

const STREAMS = option('streams', 600);
const HOLD = option('hold', 300);
const STORM = option('storm', 300);
/** The detach grace the soak's adapter runs with: the storm's runs are cancelled once it is over. */
const STORM_GRACE_MS = 5_000;
const STALLED = option('stalled', 200);
const ROUNDS = Math.max(1, option('rounds', 1));
const HEAP_MIB = option('heap-mib', 0);
const HOLD_MS = 6_000;
const BODY_TIMEOUT_MS = 2_000;
const SCENARIOS = ['hello', 'tools', 'thinking', 'artifact', 'permission', 'pipeline'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
}

/** Samples a figure every `everyMs` while `work` runs. */
async function sampling<T>(everyMs: number, sample: () => Promise<number>, work: Promise<T>): Promise<{ result: T; samples: number[] }> {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      samples.push(await sample().catch(() => Number.NaN));
      await sleep(everyMs);
    }
  })();
  const result = await work;
  running = false;
  await loop;
  return { result, samples: samples.filter((value) => !Number.isNaN(value)) };
}

async function leasesHeld(stateDir: string): Promise<number> {
  const dir = join(stateDir, 'threads');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.json'));
  let held = 0;
  for (const name of names) {
    const envelope = JSON.parse(await readFile(join(dir, name), 'utf8')) as { document: { activeRun: unknown } };
    if (envelope.document.activeRun !== null) held += 1;
  }
  return held;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const log = (line: string) => {
    if (!json) process.stdout.write(`${line}\n`);
  };
  const kernel = await startA2AEmulator({ silenceMs: HOLD_MS });
  const stateDir = await mkdtemp(join(tmpdir(), 'agui-soak-'));
  const adapter = await startSoakAdapter({
    IAC_CODE_AGUI_A2A_URL: kernel.url,
    IAC_CODE_AGUI_STATE_DIR: stateDir,
    IAC_CODE_AGUI_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    IAC_CODE_AGUI_MAX_ACTIVE_RUNS: String(Math.max(STREAMS, HOLD, STORM) + 100),
    IAC_CODE_AGUI_LOG_LEVEL: 'warn',
    // npm start keeps a detached run for a minute (docs/protocol.md §6.15); the storm's runs are
    // cancelled by the sweeper once this shorter grace is over — the disconnect rule, by any instance.
    IAC_CODE_AGUI_DETACH_GRACE_MS: String(STORM_GRACE_MS),
    ...(HEAP_MIB > 0 ? { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --max-old-space-size=${HEAP_MIB}`.trim() } : {}),
  });
  const url = adapter.url;
  const health = async (): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    return performance.now() - started;
  };
  let threads = 0;
  const thread = () => `soak-${process.pid}-${++threads}`;

  // What each scenario's streams carry when run alone.
  const expected = new Map<string, string[]>();
  for (const scenario of [...SCENARIOS, 'silence']) {
    expected.set(
      scenario,
      (await scenarioTurn(url, scenario, thread())).map((outcome) => typeCounts(outcome)),
    );
  }
  const healthIdle: number[] = [];
  for (let i = 0; i < 20; i += 1) healthIdle.push(await health());
  const rssIdle = await adapter.rss();
  log(`adapter pid ${adapter.pid} at ${url}; idle RSS ${mib(rssIdle)} MiB; /health idle p50 ${percentile(healthIdle, 50)} ms`);

  let lost = 0;
  let refused = 0;
  const lossSamples: string[] = [];
  const check = (scenario: string, outcomes: StreamOutcome[]) => {
    const want = expected.get(scenario) ?? [];
    outcomes.forEach((outcome, index) => {
      if (outcome.status !== 200) {
        refused += 1;
        return;
      }
      if (!outcome.terminal || typeCounts(outcome) !== want[index]) {
        lost += 1;
        if (lossSamples.length < 3) lossSamples.push(`${scenario}[${index}]: got ${typeCounts(outcome)}; alone ${want[index]}`);
      }
    });
  };

  // 1. hold
  const healthLoad: number[] = [];
  const hold = await sampling(100, () => adapter.rss(), Promise.all(Array.from({ length: HOLD }, () => scenarioTurn(url, 'silence', thread()))));
  for (const outcomes of hold.result) check('silence', outcomes);
  const rssPeak = Math.max(...hold.samples);
  log(`hold: ${HOLD} streams open at once; peak RSS ${mib(rssPeak)} MiB → ${Math.round((rssPeak - rssIdle) / Math.max(1, HOLD) / 1024)} KiB per live stream`);

  // 2. mix, with /health sampled
  const rssAfterRounds: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const mixStarted = performance.now();
    const mixTurns = Array.from({ length: STREAMS }, (_, index) => {
      const scenario = SCENARIOS[index % SCENARIOS.length] as string;
      return scenarioTurn(url, scenario, thread()).then((outcomes) => check(scenario, outcomes));
    });
    const mix = await sampling(100, health, Promise.all(mixTurns));
    healthLoad.push(...mix.samples);
    rssAfterRounds.push(await adapter.rss());
    log(
      `mix ${round}/${ROUNDS}: ${STREAMS} turns across ${SCENARIOS.join(', ')} in ${Math.round(performance.now() - mixStarted)} ms; RSS after ${mib(rssAfterRounds.at(-1) as number)} MiB`,
    );
  }

  // 3. disconnect storm
  const cancelsBefore = kernel.callsOf('CancelTask').length;
  const storm = Array.from({ length: STORM }, async () => {
    const controller = new AbortController();
    const response = await fetch(`${url}/`, {
      method: 'POST',
      // Each storm client asks for a grace (docs/protocol.md §6.15 "Whose grace"): its runs end by the sweeper.
      headers: { 'content-type': 'application/json', ...ASK_GRACE },
      body: JSON.stringify(runInput('long', thread())),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('TEXT_MESSAGE_CONTENT')) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    return controller;
  });
  const stormSampled = await sampling(100, health, Promise.all(storm));
  healthLoad.push(...stormSampled.samples);
  for (const controller of stormSampled.result) controller.abort();
  let cancelled = 0;
  for (let i = 0; i < 300 + STORM_GRACE_MS / 100 && cancelled < STORM; i += 1) {
    await sleep(100);
    cancelled = kernel.callsOf('CancelTask').length - cancelsBefore;
  }
  log(`disconnect storm: ${STORM} clients gone at once → ${cancelled} CancelTask`);

  // 4. stalled bodies
  const stalled = await sampling(100, health, Promise.all(Array.from({ length: STALLED }, () => stalledBody(url))));
  healthLoad.push(...stalled.samples);
  const answered408 = stalled.result.filter((outcome) => outcome.status === 408 && outcome.closed).length;
  log(`stalled bodies: ${STALLED} → ${answered408} answered 408 and closed (body deadline ${BODY_TIMEOUT_MS} ms)`);

  // Afterwards: leases, tasks, errors.
  let leasesLeft = await leasesHeld(stateDir);
  for (let i = 0; i < 100 && leasesLeft > 0; i += 1) {
    await sleep(200);
    leasesLeft = await leasesHeld(stateDir);
  }
  const tasksRunning = [...kernel.executor.scripts.values()].filter((script) => !script.ended && !script.awaiting).length;
  const rssAfter = await adapter.rss();
  const errorLines = adapter.lines().filter((line) => line['level'] === 'error');
  const exitCode = await adapter.stop();
  await kernel.close();

  const report = {
    streams: { hold: HOLD, mix: STREAMS, storm: STORM, stalled: STALLED },
    rssMiB: { idle: mib(rssIdle), peakHold: mib(rssPeak), afterEachMixRound: rssAfterRounds.map(mib), after: mib(rssAfter) },
    rssPerLiveStreamKiB: Math.round((rssPeak - rssIdle) / Math.max(1, HOLD) / 1024),
    eventLoss: lost,
    refused,
    stormCancelTask: cancelled,
    stalledAnswered408: answered408,
    leasesLeft,
    tasksLeftRunning: tasksRunning,
    errorLines: errorLines.length,
    healthMs: {
      idleP50: percentile(healthIdle, 50),
      loadP50: percentile(healthLoad, 50),
      loadP95: percentile(healthLoad, 95),
      loadMax: percentile(healthLoad, 100),
      samples: healthLoad.length,
    },
    adapterExitCode: exitCode,
  };
  const failed = lost > 0 || refused > 0 || cancelled !== STORM || answered408 !== STALLED || leasesLeft > 0 || tasksRunning > 0 || errorLines.length > 0 || exitCode !== 0;
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    log('');
    log(`event loss            ${lost}${lossSamples.length ? `  (${lossSamples.join('; ')})` : ''}`);
    log(`refused (non-200)     ${refused}`);
    log(`leases left           ${leasesLeft}`);
    log(`tasks left running    ${tasksRunning}`);
    log(`error log lines       ${errorLines.length}${errorLines.length ? `  (${JSON.stringify(errorLines[0])})` : ''}`);
    log(
      `RSS                   idle ${report.rssMiB.idle} MiB, ${HOLD} live streams ${report.rssMiB.peakHold} MiB (${report.rssPerLiveStreamKiB} KiB each), after ${report.rssMiB.after} MiB`,
    );
    log(
      `/health latency       idle p50 ${report.healthMs.idleP50} ms; under load p50 ${report.healthMs.loadP50}, p95 ${report.healthMs.loadP95}, max ${report.healthMs.loadMax} ms (${report.healthMs.samples} samples)`,
    );
    log(`adapter exit code     ${exitCode}`);
    log(failed ? 'SOAK FAILED' : 'soak passed');
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
