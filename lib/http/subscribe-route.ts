/**
 * `POST /extensions/iac-code/v1/executions/{executionId}/subscribe` (docs/protocol.md §6.14):
 * bearer, JSON, a 64 KiB body `{threadId, runId, rosInvocationId}`; 400 / 404 / 409 / 503 with the
 * JSON envelope before the stream, then a read-only observation of the execution as SSE, with
 * heartbeats as on `POST /`.
 */
import { randomUUID } from 'node:crypto';
import { languageFromAcceptLanguage } from '../core/i18n/language.js';
import { admitObservation } from '../core/observe/observable.js';
import { parseObservationRequest } from '../core/observe/observation-request.js';
import { observeExecution } from '../core/observe/observe-execution.js';
import type { Logger } from '../core/ports.js';
import type { RouteDeps } from './app.js';
import { rejectionResponse } from './rejection-log.js';
import { readProtectedJson } from './request-guards.js';
import { unjournaledLog } from './run-log.js';
import { sseResponse } from './sse.js';
import { storeOf } from './store-of.js';

export const MAX_SUBSCRIBE_BODY_BYTES = 64 * 1024;

/** `signal`: the request's abort signal as the shell gave it (App.fetch), which the live stream follows. */
export async function handleSubscribe(request: Request, signal: AbortSignal, executionId: string, deps: RouteDeps, logger: Logger): Promise<Response> {
  const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  let leave: (() => void) | undefined;
  try {
    const body = await readProtectedJson(request, deps.config, { limit: MAX_SUBSCRIBE_BODY_BYTES, tooLarge: 'subscribeTooLarge' });
    const observed = parseObservationRequest(body, executionId);
    // An observation is a live stream too: it holds a place until it ends (docs/protocol.md §1.4).
    leave = deps.liveStreams.enter();
    const store = storeOf(deps, request);
    const observation = await admitObservation(store, observed);
    const observeLogger = logger.child({ threadId: observed.threadId, runId: observed.runId, executionId, observer: true });
    observeLogger.info('observation admitted', { taskId: observation.taskId });
    const observerDeps = { kernel: deps.kernel, store, clock: deps.clock, newId: () => randomUUID().replace(/-/g, ''), logger: observeLogger };
    const release = leave;
    return sseResponse(
      async (send, runSignal) => {
        const log = unjournaledLog(executionId, observeLogger);
        log.join({ push: send, end: () => undefined });
        try {
          await observeExecution(observerDeps, { observation, language, signal: runSignal }, (event) => {
            log.emit(event, 0);
            if (event.type === 'RUN_FINISHED') observeLogger.info('observation ended', { event: event.type, outcome: event.outcome?.type });
          });
        } finally {
          await log.close();
          release();
        }
      },
      { heartbeatMs: deps.config.heartbeatMs, logger: observeLogger, requestSignal: signal },
    );
  } catch (error) {
    leave?.();
    return rejectionResponse(error, logger, 'subscribe rejected', language);
  }
}
