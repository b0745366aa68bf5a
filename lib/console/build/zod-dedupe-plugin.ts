/**
 * An esbuild plugin for the console's browser bundle (docs/architecture.md §1): one copy of zod.
 *
 * `@ag-ui/client` 1.0 imports `zod/v4` from its own nested zod 3.25 while `@ag-ui/core` uses the
 * project's zod 4, so a plain bundle carries zod v4 twice; and the `z` namespace re-exports every
 * message locale (about 260 KB minified) although only the default, English, is ever configured.
 * Resolving every `zod` import from the project root and the locales index to `en` halves the
 * bundle. The browser tests run the official client on the result.
 */
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

export function zodDedupePlugin(projectRoot: string): Plugin {
  return {
    name: 'console-zod-dedupe',
    setup(build) {
      build.onResolve({ filter: /^zod(\/.*)?$/ }, (args) =>
        args.pluginData === 'from-root' ? undefined : build.resolve(args.path, { kind: args.kind, resolveDir: projectRoot, pluginData: 'from-root' }),
      );
      build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
        args.importer.includes('/node_modules/zod/') ? { path: join(dirname(args.importer), '..', 'locales', 'en.js') } : undefined,
      );
    },
  };
}
