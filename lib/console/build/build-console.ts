/**
 * Builds the web console (docs/architecture.md §4.7) with esbuild's API, in memory: the TypeScript app under
 * lib/console/app and its stylesheet, minified for the browser, with content-hashed names. Used by
 * `npm start` at start-up (no build step), by the tests, and by `npm run build` (which writes the
 * result into the function's code folder, lib/console/build/console-files.ts).
 */
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import type { ConsoleAsset, ConsoleAssets } from '../../http/console-route.js';
import { contentTypeOf } from './console-files.js';
import { consoleHtml } from './console-html.js';
import { zodDedupePlugin } from './zod-dedupe-plugin.js';

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const APP_DIR = join(PROJECT_ROOT, 'lib', 'console', 'app');

export interface BuiltConsole extends ConsoleAssets {
  script: string;
  stylesheet: string;
  /** Bytes of the script and stylesheet, raw and gzipped (npm run build and the bench print them). */
  sizes: { scriptBytes: number; scriptGzipBytes: number; stylesheetBytes: number; stylesheetGzipBytes: number };
  metafile: Metafile;
}

export async function buildConsole(): Promise<BuiltConsole> {
  const result = await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: { console: join(APP_DIR, 'main.ts'), 'console-style': join(APP_DIR, 'console.css') },
    outdir: join(PROJECT_ROOT, '.console-build'),
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [zodDedupePlugin(PROJECT_ROOT)],
  });
  const assets = new Map<string, ConsoleAsset>();
  let script = '';
  let stylesheet = '';
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    assets.set(name, { body: new Uint8Array(file.contents), contentType: contentTypeOf(name) });
    if (name.endsWith('.js')) script = name;
    if (name.endsWith('.css')) stylesheet = name;
  }
  if (!script || !stylesheet) throw new Error('the console build produced no script or no stylesheet');
  const size = (name: string) => (assets.get(name) as ConsoleAsset).body;
  return {
    html: consoleHtml({ script, stylesheet }),
    assets,
    script,
    stylesheet,
    sizes: {
      scriptBytes: size(script).byteLength,
      scriptGzipBytes: gzipSync(size(script)).byteLength,
      stylesheetBytes: size(stylesheet).byteLength,
      stylesheetGzipBytes: gzipSync(size(stylesheet)).byteLength,
    },
    metafile: result.metafile,
  };
}
