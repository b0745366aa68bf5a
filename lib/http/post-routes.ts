/**
 * The POST routes, as one module app.ts imports on the first POST (docs/architecture.md §6.3): they
 * share validation, the core's runs and the store, so one chunk loaded once costs less — in bytes
 * shipped and in files read — than three chunks and the shared ones esbuild would cut between them.
 */
export { handleCancel } from './cancel-route.js';
export { handleRun } from './run-route.js';
export { handleSubscribe } from './subscribe-route.js';
