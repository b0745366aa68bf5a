/**
 * The Function Compute figures of `npm run bench`:
 * - the size of every function bundle (raw, gzip, source map, the whole code folder s.yaml deploys);
 * - cold start: from spawning the bundle the way FC's custom runtime does (scripts/fc/fc-local-process.ts) to
 *   the first `GET /health` 200, against a bare Node HTTP server spawned the same way (baseline).
 *
 * Timings belong here, never in tests. The kernel is the built-in emulator; /health does not call it.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { buildFunctions, PROJECT_ROOT } from '../build.js';
import { startFcLocal } from '../fc/fc-local-process.js';
import { localFcRuntime } from '../fc/render-s-yaml.js';
import { type Comparison, compare, median } from './measure.js';

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    total += entry.isDirectory() ? await folderBytes(join(dir, entry.name)) : (await stat(join(dir, entry.name))).size;
  }
  return total;
}

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

/** Spawn → first 200 of a bare `node:http` server: what any Node web function pays. */
async function bareColdStart(port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`], { stdio: 'ignore' });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/`)
        .then((response) => response.ok)
        .catch(() => false);
      if (ok) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    child.kill('SIGKILL');
  }
}

export interface FunctionComputeFigures {
  bundles: Array<Record<string, unknown>>;
  coldStart: Comparison;
}

export async function benchFunctionCompute(runs = 5): Promise<FunctionComputeFigures> {
  const built = await buildFunctions();
  const bundles = await Promise.all(
    built.map(async (fn) => ({
      name: fn.name,
      bundle: relative(PROJECT_ROOT, fn.bundle),
      bundleBytes: fn.bundleBytes,
      bundleGzipBytes: gzipSync(await readFile(fn.bundle)).length,
      sourceMapBytes: fn.sourceMapBytes,
      codeFolderBytes: await folderBytes(fn.codeDir),
      inputs: Object.keys(fn.metafile.inputs).length,
    })),
  );

  const runtime = await localFcRuntime();
  const a2aToken = randomBytes(16).toString('hex');
  const emulator = await startA2AEmulator({ token: a2aToken });
  const samples: number[] = [];
  const bare: number[] = [];
  try {
    for (let run = 0; run < runs; run += 1) {
      const stateDir = await mkdtemp(join(tmpdir(), 'agui-bench-fc-'));
      const port = await freePort();
      const started = performance.now();
      const fn = await startFcLocal({ runtime, port, a2aUrl: emulator.url, a2aToken, stateDir, healthPollMs: 1 });
      samples.push(performance.now() - started);
      await fn.stop('SIGTERM');
      await rm(stateDir, { recursive: true, force: true });
      bare.push(await bareColdStart(await freePort()));
    }
  } finally {
    await emulator.close();
  }
  return {
    bundles,
    coldStart: compare('cold start (spawn → first /health 200)', 'ms', median(samples), median(bare), `median of ${runs}; baseline: a bare node:http server spawned the same way`),
  };
}
