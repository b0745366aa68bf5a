/**
 * The Function Compute figures of `npm run bench`:
 * - the size of every function bundle (raw, gzip, source map, the whole code folder s.yaml deploys);
 * - cold start: from spawning the bundle the way FC's custom runtime does (scripts/fc/fc-local-process.ts) to
 *   the first `GET /health` 200, against a bare Node HTTP server spawned the same way, by the same
 *   Node 22 (baseline);
 * - memory per idle live stream with 1,000 streams open (live-streams.ts).
 *
 * Timings belong here, never in tests. The kernel is the built-in emulator; /health does not call it.
 */

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../../lib/emulators/oss/server.js';
import { buildFunctions, PROJECT_ROOT } from '../build.js';
import { fcLocalSpawnPlan, localCommand, type SpawnPlan } from '../fc/fc-local-process.js';
import { localFcRuntime } from '../fc/render-s-yaml.js';
import { benchLiveStreams, type LiveStreamFigures } from './live-streams.js';
import { type Comparison, compare, median, pairSpread } from './measure.js';
import type { SizeFigure } from './report.js';

/** A free loopback port: a developer's `npm run local:fc` may hold FC's 9000. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One GET /health over node:http (not fetch: the measuring process stays as light as it can). */
function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const asked = request({ host: '127.0.0.1', port, path: '/health' }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    asked.on('error', () => resolve(false));
    asked.end();
  });
}

/**
 * Spawn → first `GET /health` 200, polled every millisecond. The function and the baseline go
 * through exactly this: the same Node, folder, environment and pipes.
 */
async function timeToHealth(plan: SpawnPlan, port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(plan.program, plan.args, { cwd: plan.cwd, env: plan.env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.resume();
  child.stderr?.resume();
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${plan.args.join(' ')} exited during start-up`);
      if (await healthy(port)) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    child.kill('SIGKILL');
  }
}

/** A bare node:http server answering 200 to everything: what any Node web function pays. */
const BARE_SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.FC_SERVER_PORT), '127.0.0.1')";

export interface FunctionComputeFigures {
  /** The function's JavaScript (every output file esbuild wrote), minified and gzipped, and what ships beside it. */
  sizes: SizeFigure[];
  coldStart: Comparison;
  /** The Node that ran the bundle and the baseline (s.yaml's Node 22, or its stand-in here). */
  node: string;
  liveStreams: LiveStreamFigures | undefined;
  notes: string[];
}

/** The JavaScript files of a build (entry and chunks), not their source maps. */
function scriptOutputs(metafile: Metafile): string[] {
  return Object.keys(metafile.outputs).filter((path) => /\.m?js$/.test(path));
}

export async function benchFunctionCompute(options: { runs?: number; liveStreams?: boolean } = {}): Promise<FunctionComputeFigures> {
  const runs = options.runs ?? 11;
  const [fn] = await buildFunctions();
  if (!fn) throw new Error('no function to bench');
  const scripts = scriptOutputs(fn.metafile).map((path) => join(PROJECT_ROOT, path));
  let minified = 0;
  let gzipped = 0;
  let maps = 0;
  for (const path of scripts) {
    const code = await readFile(path);
    minified += code.length;
    gzipped += gzipSync(code).length;
    maps += (await stat(`${path}.map`).catch(() => ({ size: 0 }))).size;
  }
  const entry = (await readFile(fn.bundle)).length;
  const sizes: SizeFigure[] = [
    { name: 'function JavaScript, minified', bytes: minified, targetBytes: 700_000 },
    { name: 'function JavaScript, gzipped', bytes: gzipped, targetBytes: 200_000 },
    { name: 'entry file (read at start-up)', bytes: entry },
  ];
  const notes = [
    `The function's code folder also holds source maps (${(maps / 1e6).toFixed(2)} MB, not loaded unless a stack is printed), the web console's assets, and sharp with libvips for Linux x64 (${(fn.runtimePackages.bytes / 1e6).toFixed(1)} MB, native, excluded from the bundle figures; docs/architecture.md §4.6). ${scripts.length} JavaScript file(s) from ${Object.keys(fn.metafile.inputs).length} inputs.`,
  ];

  const runtime = await localFcRuntime();
  const program = localCommand(runtime.command).command[0] as string;
  const a2aToken = randomBytes(16).toString('hex');
  // The FC entry refuses to start without a bearer token for its POST routes (docs/protocol.md §1.2).
  const authToken = randomBytes(16).toString('hex');
  const emulator = await startA2AEmulator({ token: a2aToken });
  // As s.yaml deploys it: the OSS store (the emulator is never called by /health, but the store is configured).
  const ossCredential = { accessKeyId: 'bench-ak', accessKeySecret: randomBytes(16).toString('hex') };
  const ossEmulator = await startOssEmulator({ credentials: [ossCredential] });
  const oss = { endpoint: ossEmulator.endpoint, bucket: 'agui-state', region: 'cn-hangzhou', credentials: ossCredential };
  const samples: number[] = [];
  const bare: number[] = [];
  try {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-bench-fc-'));
    for (let run = 0; run < runs; run += 1) {
      const port = await freePort();
      const plan = fcLocalSpawnPlan({ runtime, port, a2aUrl: emulator.url, a2aToken, authToken, stateDir, oss });
      samples.push(await timeToHealth(plan, port));
      const barePort = await freePort();
      bare.push(
        await timeToHealth({ ...fcLocalSpawnPlan({ runtime, port: barePort, a2aUrl: emulator.url, a2aToken, authToken, stateDir, oss }), args: ['-e', BARE_SERVER] }, barePort),
      );
    }
    await rm(stateDir, { recursive: true, force: true });
    const liveStreams =
      options.liveStreams === false ? undefined : await benchLiveStreams({ runtime, emulator, a2aToken, port: await freePort(), barePort: await freePort(), program });
    const node = execFileSync(program, ['--version'], { encoding: 'utf8' }).trim();
    return {
      sizes,
      notes,
      node,
      liveStreams,
      coldStart: compare(
        'cold start (spawn → first /health 200)',
        'ms',
        median(samples),
        median(bare),
        `median of ${runs}, ${pairSpread(samples, bare)}, Node ${node}, s.yaml's command and environment (OSS store); baseline: a bare node:http server spawned the same way (same Node, folder, environment, pipes), runs alternating`,
      ),
    };
  } finally {
    await emulator.close();
    await ossEmulator.close();
  }
}

/**
 * Only the live-stream figure (`npm run bench -- --only streams`): the same build, Node and emulator
 * as benchFunctionCompute, without the cold-start and bundle figures.
 */
export async function benchFunctionLiveStreams(): Promise<LiveStreamFigures> {
  await buildFunctions();
  const runtime = await localFcRuntime();
  const program = localCommand(runtime.command).command[0] as string;
  const a2aToken = randomBytes(16).toString('hex');
  const emulator = await startA2AEmulator({ token: a2aToken });
  try {
    return await benchLiveStreams({ runtime, emulator, a2aToken, port: await freePort(), barePort: await freePort(), program });
  } finally {
    await emulator.close();
  }
}
