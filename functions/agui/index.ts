/**
 * Function Compute web function "agui" (docs/protocol.md §1): every endpoint, served by a Node
 * HTTP server on 0.0.0.0 at FC's port in a custom runtime — only web functions stream SSE on
 * FC 3.0. Everything else is the adapter's one start-up path (lib/adapters/start-adapter.ts,
 * docs/architecture.md §6): the A2A kernel must be configured (no emulator starts in FC), a
 * configuration error stops start-up with one JSON line, and SIGTERM drains, aborts and cleans up.
 */
import { fileURLToPath } from 'node:url';
import { startAdapter } from '../../lib/adapters/start-adapter.js';

await startAdapter({
  platform: 'function-compute',
  // The web console only when IAC_CODE_AGUI_CONSOLE=1 (off by default in FC): its serving code is
  // imported only then, and its assets are the ones `npm run build` put beside this bundle.
  loadConsole: async (settings) => {
    const { prebuiltConsoleRoute } = await import('../../lib/console/build/prebuilt-console.js');
    return prebuiltConsoleRoute(fileURLToPath(new URL('./console/', import.meta.url)), settings);
  },
});
