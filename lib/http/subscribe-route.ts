/**
 * `POST /extensions/iac-code/v1/executions/{executionId}/subscribe` (docs/protocol.md §6.14, §6.15):
 * bearer, JSON, a 64 KiB body `{threadId, runId, rosInvocationId, afterSequence?}` and an optional
 * `Last-Event-ID`; 400 / 404 / 409 / 503 with the JSON envelope before the stream, then the
 * execution's events as SSE, with heartbeats as on `POST /`: from the journal and the run's live
 * producer after the reader's position (or the current run from its start), taking the run over
 * when its producer is gone — or, for a run the journal does not hold, a read-only observation from
 * the kernel's snapshot.
 */
import { randomUUID } from 'node:crypto';
import { callerLogFields } from '../core/caller.js';
import { translate } from '../core/i18n/catalogue.js';
import { languageFromAcceptLanguage } from '../core/i18n/language.js';
import type { Position } from '../core/journal/position.js';
import { type ObservationRequest, parseObservationRequest } from '../core/observe/observation-request.js';
import { observeExecution } from '../core/observe/observe-execution.js';
import type { Logger, ThreadStore } from '../core/ports.js';
import { admitReattach } from '../core/reattach/admit-reattach.js';
import { unjournaledLog } from '../core/reattach/execution-logs.js';
import { followExecution } from '../core/reattach/follow-execution.js';
import type { StreamFlow } from '../core/reattach/paced-sender.js';
import { requestedPosition } from '../core/reattach/requested-position.js';
import { takeOver } from '../core/reattach/takeover.js';
import { compareAndSwap, readThread } from '../core/thread/compare-and-swap.js';
import { keepDetached } from '../core/thread/detach-transitions.js';
import { eventFactory } from '../core/translate/events.js';
import type { RouteDeps } from './app.js';
import { rejectionResponse } from './rejection-log.js';
import { readProtectedJson } from './request-guards.js';
import { type SendRecords, sseResponse } from './sse.js';
import { storeOf } from './store-of.js';
import { startSweeper } from './sweeper.js';

export const MAX_SUBSCRIBE_BODY_BYTES = 64 * 1024;
/** How often a reader of a run streaming on another instance reads its journal and thread again. */
const POLL_MS = 500;
/** How long a run's end may take to reach its journal after its thread says it ended. */
const END_WAIT_MS = 10_000;

/** `signal`: the request's abort signal as the shell gave it (App.fetch), which the live stream follows. */
export async function handleSubscribe(request: Request, signal: AbortSignal, executionId: string, deps: RouteDeps, logger: Logger): Promise<Response> {
  const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  let leave: (() => void) | undefined;
  try {
    const { caller, body } = await readProtectedJson(request, deps, { limit: MAX_SUBSCRIBE_BODY_BYTES, tooLarge: 'subscribeTooLarge' });
    const observed = parseObservationRequest(body, executionId, caller);
    const position = requestedPosition(request.headers.get('last-event-id'), observed.afterSequence, executionId);
    // An observation is a live stream too: it holds a place until it ends (docs/protocol.md §1.4).
    leave = deps.liveStreams.enter();
    return await subscribeResponse(observed, position, storeOf(deps, request, caller), { deps, signal, logger, language, leave });
  } catch (error) {
    leave?.();
    return rejectionResponse(error, logger, 'subscribe rejected', language);
  }
}

/** What a subscriber's stream needs besides its request: the route's dependencies, and its place among the live streams (released when the stream ends). */
export interface SubscribeContext {
  deps: RouteDeps;
  signal: AbortSignal;
  logger: Logger;
  language: Parameters<typeof takeOver>[1]['language'];
  leave: () => void;
}

/**
 * The stream of an admitted subscriber — by execution (this route) or by thread
 * (thread-routes.ts): the journal and the live producer, or the kernel's snapshot. Throws the
 * AdapterError of a reattach refused before the stream; `context.leave` is then the caller's to call.
 */
export async function subscribeResponse(observed: ObservationRequest, position: Position | undefined, store: ThreadStore, context: SubscribeContext): Promise<Response> {
  const { deps, signal, logger, language, leave } = context;
  const { executionId, caller } = observed;
  startSweeper(deps);
  const local = deps.logs.find(executionId);
  const producer = local ? { epoch: local.epoch, lastSeq: local.lastPosition?.seq ?? 0 } : undefined;
  const reattach = await admitReattach(store, observed, position, producer);
  const observeLogger = logger.child({ threadId: observed.threadId, runId: observed.runId, executionId, observer: true, ...callerLogFields(caller) });
  const release = leave;
  if (reattach.kind === 'snapshot') {
    const { observation } = reattach;
    observeLogger.info('observation admitted', { taskId: observation.taskId });
    const observerDeps = { kernel: deps.kernel, store, clock: deps.clock, newId: () => randomUUID().replace(/-/g, ''), logger: observeLogger };
    return sseResponse(
      async (send, streamSignal) => {
        // The kernel's snapshot is no part of the journal's order: ids of epoch 0 (docs/protocol.md §6.15).
        const log = unjournaledLog(executionId, observeLogger);
        log.join({ push: send, end: () => undefined });
        try {
          await observeExecution(observerDeps, { observation, language, signal: streamSignal }, (event) => {
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
  }
  observeLogger.info('reattach admitted', { position: position ?? null });
  return sseResponse(
    async (send, streamSignal, flow) => {
      try {
        await follow(deps, store, { threadId: observed.threadId, executionId, language, batches: reattach.batches, position }, send, streamSignal, observeLogger, flow);
      } finally {
        release();
      }
    },
    { heartbeatMs: deps.config.heartbeatMs, logger: observeLogger, requestSignal: signal },
  );
}

export interface FollowRequest {
  threadId: string;
  executionId: string;
  language: Parameters<typeof takeOver>[1]['language'];
  batches: Parameters<typeof followExecution>[1]['batches'];
  position: Parameters<typeof followExecution>[1]['position'];
}

/** Follows an execution's events after a position: the journal, the live producer, a takeover when it is gone (followExecution). */
export async function follow(deps: RouteDeps, store: ThreadStore, target: FollowRequest, send: SendRecords, signal: AbortSignal, logger: Logger, flow: StreamFlow): Promise<void> {
  const { config } = deps;
  const journal = store.journal;
  if (!journal) return;
  const newId = () => randomUUID().replace(/-/g, '');
  await followExecution(
    {
      journal,
      localLog: (executionId) => deps.logs.find(executionId),
      readThread: async () => (await readThread(store, target.threadId)).document,
      takeOver: (known) =>
        takeOver(
          {
            kernel: deps.kernel,
            clock: deps.clock,
            newId,
            logger,
            leaseTtlMs: config.leaseTtlMs,
            leaseRenewMs: config.leaseRenewMs,
            store,
            logs: deps.logs,
            maxGraceMs: config.detachGraceMs ?? 0,
          },
          { threadId: target.threadId, executionId: target.executionId, language: target.language, signal, known },
        ),
      clock: deps.clock,
      pollMs: POLL_MS,
      endWaitMs: END_WAIT_MS,
      maxGraceMs: config.detachGraceMs ?? 0,
      keepAttached: async (runId, graceMs) => {
        await compareAndSwap(store, target.threadId, ({ document }) => {
          const kept = document && keepDetached(document, runId, deps.clock() + graceMs);
          return kept && kept !== document ? { write: kept, value: undefined } : { value: undefined };
        });
      },
      expired: () => eventFactory(deps.clock)('RUN_ERROR', { code: 'EVENT_ID_EXPIRED', message: translate('eventIdExpired', target.language) }),
      logger,
    },
    { threadId: target.threadId, executionId: target.executionId, position: target.position, batches: target.batches },
    send,
    signal,
    flow,
  );
}
