/**
 * `POST /` with `iacCode.activeGuidance: true` (docs/protocol.md §6.13), after the checks every run
 * gets: admission without a lease (409s and 503 as HTTP JSON, thrown to handleRun), then the
 * guidance run's short SSE stream, which holds a place among the instance's live streams until it
 * ends (`release`, docs/protocol.md §1.4).
 */
import { callerLogFields } from '../core/caller.js';
import type { Language } from '../core/i18n/catalogue.js';
import type { Logger, ThreadStore } from '../core/ports.js';
import type { RunRequest } from '../core/protocol/run-request.js';
import { unjournaledLog } from '../core/reattach/execution-logs.js';
import { admitGuidance } from '../core/run/admit-guidance.js';
import { runGuidance } from '../core/run/guidance-run.js';
import type { AppDeps } from './app.js';
import { sseResponse } from './sse.js';

export async function guidanceResponse(
  /** The request's abort signal (App.fetch), which the stream follows. */
  requestSignal: AbortSignal,
  runRequest: RunRequest,
  store: ThreadStore,
  deps: AppDeps,
  logger: Logger,
  language: Language,
  release: () => void,
): Promise<Response> {
  const target = await admitGuidance(store, runRequest);
  const runLogger = logger.child({ threadId: runRequest.threadId, runId: runRequest.runId, guidance: true, ...callerLogFields(runRequest.caller) });
  runLogger.info('guidance admitted');
  return sseResponse(
    async (send, signal) => {
      // A guidance run is no part of an execution's event order: its ids are its own (docs/protocol.md §6.15).
      const log = unjournaledLog(`guidance-${runRequest.runId}`, runLogger);
      log.join({ push: send, end: () => undefined });
      try {
        await runGuidance({ kernel: deps.kernel, clock: deps.clock, logger: runLogger }, { request: runRequest, language, target, signal }, (event) => {
          log.emit(event, 0);
          if (event.type === 'RUN_FINISHED') runLogger.info('run ended', { event: event.type, outcome: 'success' });
        });
      } finally {
        await log.close();
        release();
      }
    },
    { heartbeatMs: deps.config.heartbeatMs, logger: runLogger, requestSignal },
  );
}
