/**
 * `node:http` through `require`, never through an ES module import. On Node 22 the ES module
 * facade of `node:http` reads every export, `WebSocket` and `MessageEvent` among them — lazy
 * getters that load Node's fetch implementation (undici): an `import … from 'node:http'` alone
 * costs a cold start as much again as a bare server's whole start, before anything is served
 * (issue 13; docs/architecture.md §6.3). `require('node:http')` reads nothing. The project's
 * sources keep their ordinary imports; in the bundle they read the CommonJS module (whose `require`
 * is the banner's createRequire, build.ts).
 */
import type { Plugin } from 'esbuild';

export function httpViaRequire(): Plugin {
  return {
    name: 'http-via-require',
    setup(build) {
      build.onResolve({ filter: /^(node:)?http$/ }, (args) =>
        // Bundled CommonJS already requires it; only ES module imports need the detour.
        args.kind === 'import-statement' || args.kind === 'dynamic-import' ? { path: 'node:http', namespace: 'http-via-require' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'http-via-require' }, () => ({ contents: "module.exports = require('node:http');", loader: 'js' }));
    },
  };
}
