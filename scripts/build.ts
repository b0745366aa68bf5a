/**
 * `npm run build`: one esbuild bundle per Function Compute function (docs/architecture.md §1.5): every folder under
 * functions/ with an index.ts becomes dist/<name>/index.mjs, the chunks it loads on first use in
 * dist/<name>/chunks/ (code splitting: start-up reads only what `GET /health` runs), each with its
 * source map — the code package s.yaml deploys. Node 22 (FC's Nodejs22 layer, docs/deploy.md),
 * ESM, minified. The metafile of each bundle goes beside, not into, the code package
 * (dist/<name>.meta.json) so tests can check what went in.
 *
 * Two CommonJS pitfalls are handled once, here, for every function:
 * - ali-oss (the OSS driver) reaches `proxy-agent` through a require esbuild cannot follow, so it
 *   stays external — ali-oss only loads it when a proxy is configured, which the adapter never does;
 *   its dependencies also try optional packages (`supports-color` from debug, `graceful-fs` from mz)
 *   inside try/catch with a fallback: they stay external too, absent at run time by design; so does
 *   `iconv-lite` (480 KB of code tables), which urllib requires only to decode a text or JSON answer
 *   in a charset Node's Buffer lacks — ali-oss asks urllib for neither (it parses XML from a Buffer),
 *   and urllib's own try/catch keeps the raw bytes should it ever be asked;
 * - an ESM bundle has no `require`, yet bundled CommonJS code requires Node built-ins at run time:
 *   the banner gives the bundle a real `require` made with createRequire.
 * A native module cannot be bundled: sharp (images, docs/architecture.md §4.6) stays external and is
 * copied with FC's Linux x64 binaries into dist/<name>/node_modules (build/runtime-packages.ts).
 */

import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { type BuiltConsole, buildConsole } from '../lib/console/build/build-console.js';
import { writeConsoleAssets } from '../lib/console/build/console-files.js';
import { errorSummary } from '../lib/core/error-fields.js';
import { httpViaRequire } from './build/http-via-require.js';
import { packageVersionsOnly } from './build/package-versions.js';
import { type CopiedPackages, copyRuntimePackages, RUNTIME_PACKAGES } from './build/runtime-packages.js';
import { unreachableModules } from './build/unreachable-modules.js';
import { buildClient, buildClientReact } from './build-client.js';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_FILE = 'index.mjs';
/** Where the chunks of a split bundle go, beside BUNDLE_FILE. */
export const CHUNKS_DIR = 'chunks';
/** Required only behind a proxy, or optionally inside try/catch: never present in the code package. */
export const OPTIONAL_EXTERNALS = ['proxy-agent', 'supports-color', 'graceful-fs', 'iconv-lite'] as const;

const REQUIRE_BANNER = "import { createRequire as __iacCodeCreateRequire } from 'node:module'; const require = __iacCodeCreateRequire(import.meta.url);";

/** The esbuild options every function bundle shares (exported so tests can bundle a probe with them). */
export function bundleOptions(): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    // Stack traces map back to lib/ with --enable-source-maps; the sources themselves stay out of the package.
    sourcesContent: false,
    legalComments: 'none',
    // Non-ASCII text (the message catalogue's seven languages) as UTF-8, not as \uXXXX escapes.
    charset: 'utf8',
    external: [...OPTIONAL_EXTERNALS, ...RUNTIME_PACKAGES],
    banner: { js: REQUIRE_BANNER },
    // Parts of bundled CommonJS packages nothing can reach, left out (build/unreachable-modules.ts);
    // of a package.json only its version (build/package-versions.ts); node:http required, not
    // imported, so start-up does not load Node's fetch (build/http-via-require.ts).
    plugins: [unreachableModules(), packageVersionsOnly(PROJECT_ROOT), httpViaRequire()],
    metafile: true,
    logLevel: 'warning',
  };
}

export interface BuiltFunction {
  name: string;
  /** dist/<name>: the folder s.yaml uploads as the function's code. */
  codeDir: string;
  bundle: string;
  bundleBytes: number;
  sourceMapBytes: number;
  metafile: Metafile;
  /** The web console written into <codeDir>/console (served only when IAC_CODE_AGUI_CONSOLE=1). */
  console: BuiltConsole['sizes'];
  /** The packages copied into codeDir/node_modules for the bundle to load at run time. */
  runtimePackages: CopiedPackages;
}

/** Function names: the folders of functions/ that have an index.ts. */
export async function listFunctions(root = PROJECT_ROOT): Promise<string[]> {
  const entries = await readdir(join(root, 'functions'), { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'functions', entry.name, 'index.ts')))
    .map((entry) => entry.name)
    .sort();
}

export async function buildFunctions(options: { root?: string; outDir?: string } = {}): Promise<BuiltFunction[]> {
  const root = options.root ?? PROJECT_ROOT;
  const outDir = options.outDir ?? join(root, 'dist');
  const built: BuiltFunction[] = [];
  // One console build for every function: the FC entry reads it from its code folder when enabled (docs/protocol.md §9.5).
  const webConsole = await buildConsole();
  for (const name of await listFunctions(root)) {
    const codeDir = join(outDir, name);
    // A stale file left in the code folder would be deployed with it.
    await rm(codeDir, { recursive: true, force: true });
    await mkdir(codeDir, { recursive: true });
    const bundle = join(codeDir, BUNDLE_FILE);
    const result = await build({
      ...bundleOptions(),
      absWorkingDir: root,
      entryPoints: { index: join(root, 'functions', name, 'index.ts') },
      // What the first `GET /health` does not run is split into chunks the dynamic imports load on
      // first use (the POST routes, the A2A SDK, ali-oss; docs/architecture.md §6.3).
      splitting: true,
      outdir: codeDir,
      outExtension: { '.js': '.mjs' },
      chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
    });
    const metafile = result.metafile as Metafile;
    await writeFile(join(outDir, `${name}.meta.json`), JSON.stringify(metafile));
    await writeConsoleAssets(join(codeDir, 'console'), webConsole);
    const runtimePackages = await copyRuntimePackages(root, codeDir);
    built.push({
      name,
      codeDir,
      bundle,
      bundleBytes: (await stat(bundle)).size,
      sourceMapBytes: (await stat(`${bundle}.map`)).size,
      metafile,
      console: webConsole.sizes,
      runtimePackages,
    });
  }
  return built;
}

async function main(): Promise<void> {
  const built = await buildFunctions();
  for (const fn of built) {
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    process.stdout.write(
      `${relative(PROJECT_ROOT, fn.bundle)}  ${kib(fn.bundleBytes)}  (source map ${kib(fn.sourceMapBytes)}, ${Object.keys(fn.metafile.inputs).length} inputs)\n` +
        `${relative(PROJECT_ROOT, join(fn.codeDir, 'node_modules'))}  ${kib(fn.runtimePackages.bytes)}  (${fn.runtimePackages.names.join(', ')})\n`,
    );
    process.stdout.write(
      `${relative(PROJECT_ROOT, join(fn.codeDir, 'console'))}/  script ${kib(fn.console.scriptBytes)} (gzip ${kib(fn.console.scriptGzipBytes)}), stylesheet ${kib(fn.console.stylesheetBytes)} (gzip ${kib(fn.console.stylesheetGzipBytes)})\n`,
    );
  }
  // The client module a CopilotKit or @ag-ui/client app imports (README "Using iac-code from CopilotKit or @ag-ui/client").
  process.stdout.write(`${relative(PROJECT_ROOT, await buildClient())}  (the client module)\n`);
  process.stdout.write(`${relative(PROJECT_ROOT, await buildClientReact())}  (the client module's React renderers)\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`build failed: ${errorSummary(error)}\n`);
    process.exit(1);
  });
}
