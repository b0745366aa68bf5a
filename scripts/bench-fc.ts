/**
 * `npm run bench`: the Function Compute numbers, printed as one JSON document —
 * - the size of every function bundle (raw, gzip, source map, the whole code folder s.yaml deploys);
 * - cold start: from spawning the bundle the way FC's custom runtime does (scripts/local-fc.ts) to
 *   the first `GET /health` 200, over several runs (min / median / max, milliseconds).
 *
 *   npm run bench [-- --runs 7]
 *
 * Timings belong here, never in tests. The kernel is the built-in emulator; /health does not call it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { buildFunctions, PROJECT_ROOT } from './build.js';
import { localFcRuntime, startFcLocal } from './local-fc.js';

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

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] as number;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--runs');
  const runs = at >= 0 ? Math.max(1, Number(process.argv[at + 1]) || 5) : 5;

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
  try {
    for (let run = 0; run < runs; run += 1) {
      const stateDir = await mkdtemp(join(tmpdir(), 'agui-bench-fc-'));
      const port = await freePort();
      const started = performance.now();
      const fn = await startFcLocal({ runtime, port, a2aUrl: emulator.url, a2aToken, stateDir, healthPollMs: 1 });
      samples.push(performance.now() - started);
      await fn.stop('SIGTERM');
      await rm(stateDir, { recursive: true, force: true });
    }
  } finally {
    await emulator.close();
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 10) / 10;
  process.stdout.write(
    `${JSON.stringify(
      {
        node: process.version,
        bundles,
        coldStartMs: { measure: 'spawn → first GET /health 200', runs, min: round(sorted[0] as number), median: round(percentile(sorted, 0.5)), max: round(sorted.at(-1) as number), samples: samples.map(round) },
      },
      null,
      2,
    )}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
