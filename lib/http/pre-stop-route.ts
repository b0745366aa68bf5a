/**
 * GET /pre-stop (docs/protocol.md §1.1): Function Compute's PreStop hook. Before FC stops an
 * instance of a custom runtime whose function configures instanceLifecycleConfig.preStop, it calls
 * GET /pre-stop with `x-fc-control-path: /pre-stop` (FC "lifecycle hooks for function instances in
 * a custom runtime"). FC refuses `x-fc-*` request headers from callers of the HTTP trigger, so the
 * marker can only come from FC itself; without it — or when no drain is wired in — the path does
 * not exist (404), like any unknown path.
 *
 * The drain is the instance's graceful shutdown (docs/architecture.md §6.4) run from inside this
 * request: live runs may finish, the rest are aborted and cleaned up (CancelTask, lease released).
 * 200 once every clean-up finished; 500 (a failed hook, for FC) when some could not finish in time —
 * those leases expire by themselves.
 */
import type { Logger } from '../core/ports.js';
import { jsonResponse } from './json-response.js';

export const PRE_STOP_PATH = '/pre-stop';

/** What the drain reports (lib/adapters/node-server/graceful-shutdown.ts ShutdownReport). */
export interface DrainReport {
  drained: boolean;
  aborted: number;
  abandoned: number;
}

/**
 * Drains every request in flight but the hook's own, known by the abort signal the app got for it
 * (wired in by lib/adapters/start-adapter.ts).
 */
export type PreStopDrain = (signal: AbortSignal) => Promise<DrainReport>;

/** FC's own lifecycle call: the marker FC sets and callers cannot. */
export function isPreStopCall(request: Request): boolean {
  return request.headers.get('x-fc-control-path') === PRE_STOP_PATH;
}

export async function handlePreStop(signal: AbortSignal, drain: PreStopDrain, logger: Logger): Promise<Response> {
  logger.info('pre-stop hook called');
  const report = await drain(signal);
  return jsonResponse(report.abandoned === 0 ? 200 : 500, { status: report.abandoned === 0 ? 'drained' : 'incomplete', ...report });
}
