/**
 * Function Compute web function "agui" (docs/protocol.md §1): all three endpoints, served by a
 * Node HTTP server on 0.0.0.0 at FC's port in a custom runtime — only web functions stream SSE on
 * FC 3.0. Everything else is the adapter's one start-up path (lib/adapters/start-adapter.ts,
 * docs/architecture.md §6): the A2A kernel must be configured (no emulator starts in FC), a
 * configuration error stops start-up with one JSON line, and SIGTERM drains, aborts and cleans up.
 */
import { startAdapter } from '../../lib/adapters/start-adapter.js';

await startAdapter({ platform: 'function-compute' });
