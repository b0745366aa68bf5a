/**
 * A built console on disk (docs/architecture.md §4.7): `npm run build` writes it into the function's code folder as
 * `index.html` plus `assets/<hashed name>`, and the FC entry reads it back when
 * IAC_CODE_AGUI_CONSOLE=1. No esbuild here: this is all the FC function loads.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { ConsoleAsset, ConsoleAssets } from '../../http/console-route.js';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export function contentTypeOf(fileName: string): string {
  return CONTENT_TYPES[extname(fileName)] ?? 'application/octet-stream';
}

export async function writeConsoleAssets(dir: string, built: ConsoleAssets): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'assets'), { recursive: true });
  await writeFile(join(dir, 'index.html'), built.html);
  for (const [name, asset] of built.assets) await writeFile(join(dir, 'assets', name), asset.body);
}

/** Reads a console written by writeConsoleAssets; a missing folder is an error naming it. */
export async function readConsoleAssets(dir: string): Promise<ConsoleAssets> {
  let html: string;
  try {
    html = await readFile(join(dir, 'index.html'), 'utf8');
  } catch {
    throw new Error(`the web console is enabled but not built: ${join(dir, 'index.html')} is missing (npm run build writes it)`);
  }
  const assets = new Map<string, ConsoleAsset>();
  for (const name of await readdir(join(dir, 'assets'))) {
    assets.set(name, { body: new Uint8Array(await readFile(join(dir, 'assets', name))), contentType: contentTypeOf(name) });
  }
  return { html, assets };
}
