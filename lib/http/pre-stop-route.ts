/**
 * GET /pre-stop (docs/protocol.md §1.1): Function Compute's PreStop hook. Before FC stops an
 * instance of a custom runtime whose function configures instanceLifecycleConfig.preStop, it calls
 * GET /pre-stop with `x-fc-control-path: /pre-stop` (FC "lifecycle hooks for function instances in
 * a custom runtime"). FC refuses `x-fc-*` request headers from callers of the HTTP trigger, so the
 * marker can only come from FC itself — but only inside FC: a server anyone can reach directly
 * (`npm start`) must not drain on a header any caller can send. So the drain is wired in only
 * where FC can call it (FC_SERVER_PORT set, docs/protocol.md §9.3); without it, or without the
 * marker, the path does not exist (404), like any unknown path.
 *
 * Whether FC 3.0 marks its PreStop call with that header is not documented (its header reference
 * lists `x-fc-control-path` only for invoke and initialize). Inside FC, an unmarked GET /pre-stop
 * is therefore logged at warn with the names of the headers it carried — never their values — so
 * the first real scale-in shows what FC sends (docs/deploy.md "Verify the deployment").
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

/** Inside FC, a GET /pre-stop without the marker: answered 404 like any unknown path, and logged (header names only). */
export function logUnmarkedPreStop(request: Request, logger: Logger): void {
  logger.warn('GET /pre-stop without FC’s lifecycle marker (x-fc-control-path: /pre-stop); answered 404, nothing drained', {
    headerNames: [...request.headers.keys()].sort(),
  });
}

export async function handlePreStop(signal: AbortSignal, drain: PreStopDrain, logger: Logger): Promise<Response> {
  logger.info('pre-stop hook called');
  const report = await drain(signal);
  return jsonResponse(report.abandoned === 0 ? 200 : 500, { status: report.abandoned === 0 ? 'drained' : 'incomplete', ...report });
}
