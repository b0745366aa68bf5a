/**
 * Four files of the function read a package.json, and only its `version`: `GET /health`
 * (lib/adapters/versions.ts, docs/protocol.md §1.7: ours and @ag-ui/core's) and the User-Agent of
 * ali-oss and of urllib. JSON is bundled whole; these four package.json files become just
 * `{"version": …}` in the bundle — dependencies, scripts and the rest stay out of the code.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Plugin } from 'esbuild';

/** Read by lib/adapters/versions.ts, ali-oss/lib/client.js and urllib/lib/urllib.js: `.version` and nothing else. */
const VERSION_ONLY = ['package.json', 'node_modules/@ag-ui/core/package.json', 'node_modules/ali-oss/package.json', 'node_modules/urllib/package.json'];

export function packageVersionsOnly(root: string): Plugin {
  const files = new Set(VERSION_ONLY.map((path) => resolve(root, path)));
  return {
    name: 'package-versions-only',
    setup(build) {
      build.onLoad({ filter: /[\\/]package\.json$/ }, async (args) => {
        if (!files.has(args.path)) return undefined;
        const manifest = JSON.parse(await readFile(args.path, 'utf8')) as { version?: unknown };
        return { contents: JSON.stringify({ version: manifest.version }), loader: 'json' };
      });
    },
  };
}
