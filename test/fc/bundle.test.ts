/**
 * The function bundles (issue: "Bundles with esbuild"): one per function, Node 22 ESM, minified,
 * split into an entry and the chunks it loads on first use, with source maps that lead a logged
 * stack back to lib/ under `node --enable-source-maps` (as s.yaml runs it; docs/architecture.md §5);
 * the emulators, test code and express never end up in a bundle (checked with esbuild's metafile);
 * the bundle stays within issue 13's size (700 KB minified, 200 KB gzipped); and the shared build
 * options really bundle ali-oss — with the modules left out as unreachable — into a file whose OSS
 * client does the driver's five operations against the OSS emulator. All run under the Node 22
 * that runs the bundle in FC (FC_NODE).
 */

import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import type { ErrorFields } from '../../lib/core/error-fields.js';
import { startOssEmulator } from '../../lib/emulators/oss/server.js';
import { FC_PLATFORM_PACKAGES, RUNTIME_PACKAGES } from '../../scripts/build/runtime-packages.js';
import { BUNDLE_FILE, type BuiltFunction, bundleOptions, CHUNKS_DIR, listFunctions, OPTIONAL_EXTERNALS, PROJECT_ROOT } from '../../scripts/build.js';
import { runBody } from '../support/fixtures.js';
import { buildForSuite, FC_NODE, freePort, jsonLines } from './fc-support.js';

/** Every JavaScript file of the build: the entry and its chunks (metafile paths are relative to the project). */
function scriptOutputs(fn: BuiltFunction): string[] {
  return Object.keys(fn.metafile.outputs)
    .filter((path) => path.endsWith('.mjs'))
    .map((path) => resolve(PROJECT_ROOT, path));
}

const suite = buildForSuite();

/** Bundles a probe script with the functions' own esbuild options, as the build bundles an entry. */
async function bundleProbe(contents: string, outfile: string): Promise<void> {
  await build({
    ...bundleOptions(),
    absWorkingDir: PROJECT_ROOT,
    stdin: { contents, resolveDir: PROJECT_ROOT, sourcefile: 'probe.ts', loader: 'ts' },
    outfile,
    logLevel: 'silent',
  });
}

describe('function bundles', () => {
  it('builds one bundle per folder of functions/ into dist/<name>/index.mjs with its source map and its run-time packages', async () => {
    const names = await listFunctions();
    expect(names).toContain('agui');
    for (const name of names) {
      expect((await readdir(join(suite.outDir, name))).sort()).toEqual([CHUNKS_DIR, 'console', BUNDLE_FILE, `${BUNDLE_FILE}.map`, 'node_modules']);
    }
    const scripts = scriptOutputs(suite.agui);
    expect(scripts).toContain(suite.agui.bundle);
    for (const script of scripts) {
      expect(script === suite.agui.bundle || dirname(script) === join(suite.agui.codeDir, CHUNKS_DIR)).toBe(true);
      const code = await readFile(script, 'utf8');
      expect(code).toMatch(/\/\/# sourceMappingURL=[\w-]+\.mjs\.map\s*$/);
      // Minified: each file fits on a handful of lines.
      expect(code.split('\n').length).toBeLessThan(200);
      const map = JSON.parse(await readFile(`${script}.map`, 'utf8')) as { sourcesContent?: unknown };
      expect(map.sourcesContent).toBeUndefined();
    }
    const map = JSON.parse(await readFile(`${suite.agui.bundle}.map`, 'utf8')) as { sources: string[] };
    expect(map.sources.some((source) => source.endsWith('functions/agui/index.ts'))).toBe(true);
  });

  it('stays within 700 KB of minified JavaScript and 200 KB gzipped, entry and chunks together (issue 13)', async () => {
    let minified = 0;
    let gzipped = 0;
    for (const script of scriptOutputs(suite.agui)) {
      const code = await readFile(script);
      minified += code.length;
      gzipped += gzipSync(code).length;
    }
    expect(minified).toBeLessThanOrEqual(700_000);
    expect(gzipped).toBeLessThanOrEqual(200_000);
  });

  it('maps every bundled project file back to its source under lib/ or functions/ (and package.json, for the version)', async () => {
    const own: string[] = [];
    for (const script of scriptOutputs(suite.agui)) {
      const map = JSON.parse(await readFile(`${script}.map`, 'utf8')) as { sources: string[] };
      // Modules the build's plugins make up (`<namespace>:…`, scripts/build/) are no project files.
      const files = map.sources.filter((source) => !/^[a-z-]+:/.test(source));
      own.push(...files.map((source) => relative(PROJECT_ROOT, resolve(dirname(script), source))).filter((path) => !path.includes('node_modules/')));
    }
    expect(own).toContain('lib/core/run/run-failure.ts');
    expect(own).toContain('lib/adapters/a2a-kernel/sdk-kernel.ts');
    for (const path of own) {
      expect(path).toMatch(/^(lib\/|functions\/|package\.json$)/);
      expect(existsSync(join(PROJECT_ROOT, path)), path).toBe(true);
    }
  });

  it('logs a failed run’s stack with lib/ file names when run with --enable-source-maps', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-bundle-state-'));
    suite.scratch.push(stateDir);
    const [port, kernelPort] = [await freePort(), await freePort()];
    // No bearer token here: the flag lets the FC entry start without one (docs/protocol.md §1.2).
    const env = {
      PATH: process.env['PATH'],
      FC_SERVER_PORT: String(port),
      IAC_CODE_AGUI_A2A_URL: `http://127.0.0.1:${kernelPort}/`,
      IAC_CODE_AGUI_STATE_DIR: stateDir,
      IAC_CODE_AGUI_ALLOW_ANONYMOUS: '1',
    };
    const child = spawn(FC_NODE, ['--enable-source-maps', BUNDLE_FILE], { cwd: suite.agui.codeDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffered = '';
    const seen = (message: string) => jsonLines(lines).find((line) => line['message'] === message);
    const waitFor = async (message: string) => {
      for (let tries = 0; tries < 400 && !seen(message); tries += 1) await new Promise((done) => setTimeout(done, 25));
      return seen(message);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const complete = buffered.split('\n');
      buffered = complete.pop() ?? '';
      lines.push(...complete);
    });
    try {
      expect(await waitFor('listening')).toBeDefined();
      const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody()) });
      expect(await response.text()).toContain('A2A_UNAVAILABLE');
      const ended = await waitFor('run ended');
      expect(ended).toMatchObject({ level: 'warn', code: 'A2A_UNAVAILABLE' });
      const failure = ended?.['error'] as ErrorFields;
      expect(failure.stack).toMatch(/lib\/core\/run\/run-failure\.ts:\d+:\d+/);
      expect(failure.cause?.stack).toMatch(/lib\/adapters\/a2a-kernel\/sdk-kernel\.ts:\d+:\d+/);
      expect(failure.stack).not.toContain(BUNDLE_FILE);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('targets Node 22 (FC’s Nodejs22 layer) as ESM, with a real require for bundled CommonJS and proxy-agent left external', () => {
    const options = bundleOptions();
    expect(options).toMatchObject({ platform: 'node', target: 'node22', format: 'esm', minify: true, bundle: true });
    expect(options.external).toContain('proxy-agent');
    expect(String(options.banner?.['js'])).toContain('createRequire');
  });

  it('keeps the emulators, test code and express out of every bundle (esbuild metafile)', () => {
    const inputs = Object.keys(suite.agui.metafile.inputs);
    expect(inputs).toContain('functions/agui/index.ts');
    expect(inputs).toContain('lib/http/app.ts');
    expect(inputs.filter((input) => input.startsWith('lib/emulators/'))).toEqual([]);
    expect(inputs.filter((input) => input.startsWith('test/') || input.startsWith('scripts/'))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/(express|vitest|@vitest|vite|tsx|@serverless-devs)\//.test(input))).toEqual([]);
    // At run time the bundle needs nothing but Node's built-ins (proxy-agent is only loaded behind a proxy, which the adapter never sets)
    // and sharp, imported dynamically on the first image: never at start-up (docs/architecture.md §4.6).
    const external = Object.values(suite.agui.metafile.outputs).flatMap((output) => output.imports.filter((imported) => imported.external));
    const needed = external.map((imported) => imported.path.replace(/^node:/, ''));
    expect(needed.filter((path) => !builtinModules.includes(path) && !(OPTIONAL_EXTERNALS as readonly string[]).includes(path))).toEqual([...RUNTIME_PACKAGES]);
    expect(external.filter((imported) => (RUNTIME_PACKAGES as readonly string[]).includes(imported.path))).toEqual([{ path: 'sharp', kind: 'dynamic-import', external: true }]);
  });

  it('ships sharp with its dependencies and only the Linux x64 glibc binaries FC runs, loadable from the code folder', async () => {
    expect(suite.agui.runtimePackages.names.sort()).toEqual(['@img/colour', ...FC_PLATFORM_PACKAGES, 'detect-libc', 'semver', 'sharp'].sort());
    expect((await readdir(join(suite.agui.codeDir, 'node_modules', '@img'))).sort()).toEqual(['colour', 'sharp-libvips-linux-x64', 'sharp-linux-x64']);
    // Resolved from the code folder alone, as the bundle resolves it in FC (NODE_PATH and the project's node_modules out of reach).
    const probe = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { default: sharp } = await import('sharp'); process.stdout.write(JSON.stringify({ vips: sharp.versions.vips, at: import.meta.resolve('sharp') }));",
      ],
      { cwd: suite.agui.codeDir, env: { PATH: process.env['PATH'] }, encoding: 'utf8', timeout: 15_000 },
    );
    expect(probe.stderr).toBe('');
    const loaded = JSON.parse(probe.stdout) as { vips: string; at: string };
    expect(loaded.vips).toMatch(/^\d+\.\d+/);
    expect(loaded.at).toContain(`${suite.agui.codeDir}/node_modules/sharp/`);
  });

  it('puts the prebuilt web console beside the bundle, and its browser code and esbuild nowhere in it (docs/protocol.md §9.5)', async () => {
    expect((await readdir(join(suite.agui.codeDir, 'console'))).sort()).toEqual(['assets', 'index.html']);
    const assets = await readdir(join(suite.agui.codeDir, 'console', 'assets'));
    expect(assets.sort()).toEqual([expect.stringMatching(/^console-[A-Z0-9]+\.js$/), expect.stringMatching(/^console-style-[A-Z0-9]+\.css$/)]);
    const html = await readFile(join(suite.agui.codeDir, 'console', 'index.html'), 'utf8');
    for (const asset of assets) expect(html).toContain(`/console/assets/${asset}`);
    expect(suite.agui.console.scriptGzipBytes).toBeLessThan(suite.agui.console.scriptBytes);

    const inputs = Object.keys(suite.agui.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith('lib/console/app/'))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/(esbuild|@esbuild|@ag-ui\/client|playwright-core)\//.test(input))).toEqual([]);
    expect(inputs).not.toContain('lib/console/build/build-console.ts');
    // Only the loader of the prebuilt files, behind a dynamic import the entry takes when IAC_CODE_AGUI_CONSOLE=1.
    expect(inputs).toContain('lib/console/build/prebuilt-console.ts');
    const code = await readFile(suite.agui.bundle, 'utf8');
    expect(code).not.toContain('zod-dedupe');
  });

  it('bundles ali-oss with the shared options into a file that runs and talks to an OSS endpoint', async () => {
    const probeDir = await mkdtemp(join(tmpdir(), 'agui-oss-probe-'));
    suite.scratch.push(probeDir);
    const probe = join(probeDir, 'probe.mjs');
    const contents = `
      import OSS from 'ali-oss';
      import { createServer } from 'node:http';
      const server = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { etag: '"0123"' }); res.end(); }); });
      server.listen(0, '127.0.0.1', async () => {
        const client = new OSS({ endpoint: 'http://127.0.0.1:' + server.address().port, bucket: 'probe-bucket', accessKeyId: 'id', accessKeySecret: 'secret' });
        const result = await client.put('agui/threads/t/1.json', Buffer.from('{}'), { headers: { 'x-oss-forbid-overwrite': 'true' } });
        process.stdout.write(JSON.stringify({ status: result.res.status }));
        server.close();
      });`;
    await bundleProbe(contents, probe);
    const run = spawnSync(FC_NODE, [probe], { encoding: 'utf8', timeout: 15_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ status: 200 });
  });

  it('bundles the driver’s OSS client, without the modules left out as unreachable, doing all five of its operations against the OSS emulator (V1 and V4)', async () => {
    const emulator = await startOssEmulator();
    try {
      const probeDir = await mkdtemp(join(tmpdir(), 'agui-oss-objects-probe-'));
      suite.scratch.push(probeDir);
      const probe = join(probeDir, 'probe.mjs');
      const contents = `
        import { AliOssObjects } from './lib/adapters/oss-store/objects.ts';
        const objects = new AliOssObjects(
          { endpoint: process.env.ENDPOINT, bucket: 'agui-state', region: 'cn-hangzhou', signature: process.env.SIGNATURE, timeoutMs: 5000, pathStyle: true },
          { accessKeyId: 'test-ak', accessKeySecret: 'test-secret', securityToken: undefined },
        );
        const prefix = 'agui/threads/probe-' + process.env.SIGNATURE + '/r/';
        const answeredAt = await objects.create(prefix + '1.json', Buffer.from('{"n":1}'));
        const again = await objects.create(prefix + '1.json', Buffer.from('{}')).then(() => 'created', (error) => error.kind);
        const read = (await objects.read(prefix + '1.json')).toString('utf8');
        const missing = await objects.read(prefix + 'none.json');
        await objects.create(prefix + '2.json', Buffer.from('{"n":2}'));
        await objects.create(prefix + '3.json', Buffer.from('{"n":3}'));
        const listed = await objects.list(prefix, { maxKeys: 2 });
        await objects.removeMany([prefix + '2.json', prefix + '3.json']);
        await objects.remove(prefix + '1.json');
        const left = await objects.list(prefix, { maxKeys: 10 });
        process.stdout.write(JSON.stringify({ answeredAt: typeof answeredAt, again, read, missing: missing === undefined, listed: listed.keys, truncated: listed.nextContinuationToken !== undefined, etag: listed.etags?.[0], left: left.keys }));`;
      await bundleProbe(contents, probe);
      for (const signature of ['v1', 'v4']) {
        // Not spawnSync: the emulator answers from this process's event loop.
        const run = await promisify(execFile)(FC_NODE, [probe], {
          encoding: 'utf8',
          timeout: 15_000,
          env: { PATH: process.env['PATH'], ENDPOINT: emulator.endpoint, SIGNATURE: signature },
        });
        expect(run.stderr).toBe('');
        const prefix = `agui/threads/probe-${signature}/r/`;
        expect(JSON.parse(run.stdout)).toEqual({
          answeredAt: 'number',
          again: 'exists',
          read: '{"n":1}',
          missing: true,
          listed: [`${prefix}1.json`, `${prefix}2.json`],
          truncated: true,
          etag: expect.stringMatching(/^"[0-9A-F]{32}"$/),
          left: [],
        });
      }
    } finally {
      await emulator.close();
    }
  });
});
