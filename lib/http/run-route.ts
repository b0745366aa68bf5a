/**
 * `POST /` (docs/protocol.md §1.3): the checks in the order of docs/protocol.md §1.3 — language, auth, content type,
 * size, JSON, language override, RunAgentInput, image downsampling, admission — each failure
 * answered as HTTP JSON before the stream; then the run streams as SSE.
 */
import { randomUUID } from 'node:crypto';
import { callerLogFields } from '../core/caller.js';
import { languageFromAcceptLanguage, preferredLanguageOf } from '../core/i18n/language.js';
import type { LogRecord } from '../core/journal/event-log.js';
import type { Position } from '../core/journal/position.js';
import type { Logger } from '../core/ports.js';
import { parseRunRequest } from '../core/protocol/run-request.js';
import { downsampleUserImages } from '../core/protocol/user-images.js';
import { askedGraceMs, DETACH_GRACE_HEADER } from '../core/reattach/detach-grace.js';
import { admit } from '../core/run/admit.js';
import { runAdmitted } from '../core/run/run-lifecycle.js';
import type { RunDeps } from '../core/run/run-session.js';
import type { RouteDeps } from './app.js';
import { guidanceResponse } from './guidance-response.js';
import { rejectionResponse } from './rejection-log.js';
import { readProtectedJson } from './request-guards.js';
import { sseResponse } from './sse.js';
import { storeOf } from './store-of.js';
import { follow } from './subscribe-route.js';
import { startSweeper } from './sweeper.js';

export const MAX_RUN_BODY_BYTES = 12 * 1024 * 1024;

/** `signal`: the request's abort signal as the shell gave it (App.fetch), which the live stream follows. */
export async function handleRun(request: Request, signal: AbortSignal, deps: RouteDeps, logger: Logger): Promise<Response> {
  const { config } = deps;
  let language = languageFromAcceptLanguage(request.headers.get('accept-language'), config.defaultLanguage);
  let leave: (() => void) | undefined;
  try {
    const { caller, body } = await readProtectedJson(request, deps, { limit: MAX_RUN_BODY_BYTES, tooLarge: 'requestTooLarge' });
    language = preferredLanguageOf(body) ?? language;
    // Images are downsampled before admission: a refused image writes nothing, and the digest
    // parseRunRequest took stays that of the request as received (docs/protocol.md §3.4, §3.7).
    const runRequest = await downsampleUserImages(parseRunRequest(body, { allowedRoots: config.allowedRoots, caller }), deps.images);
    // The grace is the client's to ask for, the server's setting its maximum (docs/protocol.md §6.15 "Whose grace").
    const graceMs = askedGraceMs(request.headers.get(DETACH_GRACE_HEADER), config.detachGraceMs ?? 0);
    // A place among the instance's live runs before anything is written or sent (docs/protocol.md §1.4).
    leave = deps.liveStreams.enter();
    const store = storeOf(deps, request, caller);
    startSweeper(deps);
    // Guidance steers the live pipeline without taking the thread (docs/protocol.md §6.13).
    if (runRequest.iacCode.activeGuidance === true) return await guidanceResponse(signal, runRequest, store, deps, logger, language, leave);
    const admitted = await admit(store, runRequest, () => ({
      now: deps.clock(),
      leaseTtlMs: config.leaseTtlMs,
      newExecutionId: () => randomUUID(),
      leaseId: randomUUID(),
      graceMs,
    }));
    const runLogger = logger.child({ threadId: runRequest.threadId, runId: runRequest.runId, executionId: admitted.thread.executionId, ...callerLogFields(caller) });
    runLogger.info('run admitted', { resume: runRequest.resume !== undefined });
    const runDeps: RunDeps = {
      kernel: deps.kernel,
      clock: deps.clock,
      newId: () => randomUUID().replace(/-/g, ''),
      logger: runLogger,
      leaseTtlMs: config.leaseTtlMs,
      leaseRenewMs: config.leaseRenewMs,
    };
    const release = leave;
    const { thread } = admitted;
    return sseResponse(
      async (send, runSignal, flow) => {
        // The run's events are placed, journaled and released by its execution's log (docs/protocol.md §6.15).
        const log = deps.logs.open({
          journal: store.journal,
          threadId: runRequest.threadId,
          executionId: thread.executionId,
          epoch: thread.document.execution.journalEpoch ?? 0,
          start: { kind: 'run', runId: runRequest.runId },
          logger: runLogger,
        });
        // Where the caller stands, should the run's log be fenced under it (another producer continues the run).
        let last: Position | undefined;
        const caller = {
          push: (records: readonly LogRecord[]) => {
            last = records.at(-1)?.position ?? last;
            send(records);
          },
          end: () => undefined,
        };
        log.join(caller);
        const resumable = deps.logs.resumable(log, store, graceMs);
        // A resumable run counts its readers (docs/protocol.md §6.15); otherwise the caller reads to the
        // end — a client cut off by a shutdown still gets the terminal event (§6.8).
        if (resumable.graceMs > 0) runSignal.addEventListener('abort', () => log.leave(caller), { once: true });
        try {
          await runAdmitted(
            runDeps,
            { request: runRequest, language, thread, orphanTaskId: admitted.orphanTaskId, signal: runSignal, resumable, superseded: () => log.fence() },
            (event, textCursor) => {
              log.emit(event, textCursor);
              // A RUN_ERROR is logged at warn, with its cause, where the run creates it (lib/core/run/run-session.ts).
              if (event.type === 'RUN_FINISHED') runLogger.info('run ended', { event: event.type, outcome: event.outcome?.type });
            },
          );
          // The caller still reads a run another producer continues: it follows the journal (docs/design/reattach.md "Fence").
          if (log.fenced && !runSignal.aborted) {
            await follow(deps, store, { threadId: runRequest.threadId, executionId: thread.executionId, language, batches: [], position: last }, send, runSignal, runLogger, flow);
          }
        } finally {
          await deps.logs.close({ threadId: runRequest.threadId, executionId: thread.executionId, log, store, logger: runLogger });
          release();
        }
      },
      { heartbeatMs: config.heartbeatMs, logger: runLogger, requestSignal: signal },
    );
  } catch (error) {
    leave?.();
    return rejectionResponse(error, logger, 'request rejected', language);
  }
}
