/**
 * The POST routes — and the thread reads beside them, which share the store and the subscribe
 * stream — as one module app.ts imports on the first such request (docs/architecture.md §6.3): they
 * share validation, the core's runs and the store, so one chunk loaded once costs less — in bytes
 * shipped and in files read — than three chunks and the shared ones esbuild would cut between them.
 */

export { InstanceLogs } from '../core/reattach/execution-logs.js';
export { handleCancel } from './cancel-route.js';
export { handleRun } from './run-route.js';
export { handleSubscribe } from './subscribe-route.js';
export { handleThreadMessages, handleThreadState, handleThreadSubscribe } from './thread-routes.js';

import { InstanceLogs as Logs } from '../core/reattach/execution-logs.js';
/** The instance's event logs (app.ts makes them on the first POST). */
export const instanceLogs = (clock: () => number): Logs => new Logs(clock);
