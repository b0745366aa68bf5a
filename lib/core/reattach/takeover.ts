/**
 * A reader takes a live run over from a producer that is gone (docs/protocol.md §6.15
 * "Takeover"): the run was detached, or its lease expired unrenewed — its instance was frozen,
 * stopped or killed — while its task goes on in the kernel. The reader's instance becomes the run's
 * producer: a new lease and producer epoch in one compare-and-swap, the epoch's fork point in the
 * journal before anything is said, then the run goes on exactly as a run does (identities,
 * interrupts committed before announced, its end, its lease renewed, the disconnect or detach rule
 * when its reader leaves) — its events placed in a new event log on this instance.
 */
import { SERVICE } from '../caller.js';
import { errorFields } from '../error-fields.js';
import type { Language } from '../i18n/catalogue.js';
import type { JournalBatch } from '../journal/batch.js';
import { type Canonical, canonicalOrder } from '../journal/canonical.js';
import type { EventLog } from '../journal/event-log.js';
import { fenceEpoch } from '../journal/fence.js';
import { openSpansOfLastRun, runStartJournaled } from '../journal/open-spans.js';
import type { ThreadStore } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import { followRun } from '../run/run-lifecycle.js';
import { type RunDeps, RunSession } from '../run/run-session.js';
import { RunThread } from '../run/run-thread.js';
import { compareAndSwap } from '../thread/compare-and-swap.js';
import { runToTakeOver, takeOverRun } from '../thread/detach-transitions.js';
import type { ThreadDocument } from '../thread/document.js';
import { runGraceMs } from './detach-grace.js';
import type { ExecutionLogs } from './execution-logs.js';
import { streamTakeover } from './stream-takeover.js';

export interface TakeoverDeps extends RunDeps {
  store: ThreadStore;
  /** The instance's event logs: the takeover's log is opened, closed and handed over there like a run's. */
  logs: ExecutionLogs;
  /** The server's maximum detach grace (IAC_CODE_AGUI_DETACH_GRACE_MS); the run keeps the one its caller asked for (detach-grace.ts). */
  maxGraceMs: number;
}

export interface TakeoverTarget {
  threadId: string;
  executionId: string;
  language: Language;
  /** The taking reader's signal: the run's caller from now on. */
  signal: AbortSignal;
  /** The journal's batches the reader already read, in key order: the fence reads only what follows them. */
  known?: readonly JournalBatch[];
}

/** The run's new log on this instance, and the journal's order it forked from (read once, behind the fence). */
export interface TakenOver {
  log: EventLog;
  order: Canonical;
}

/** Resolves with the run's new log on this instance, or undefined when there was nothing to take (another reader took it, or it ended). */
export async function takeOver(deps: TakeoverDeps, target: TakeoverTarget): Promise<TakenOver | undefined> {
  const leaseId = deps.newId();
  const outcome = await compareAndSwap(deps.store, target.threadId, ({ document }) => {
    if (!document || !runToTakeOver(document, target.executionId, deps.clock())) return { value: false };
    return { write: takeOverRun(document, { leaseId, expiresAt: deps.clock() + deps.leaseTtlMs }), value: true };
  });
  const document = outcome.state.document;
  if (!outcome.value || !document?.activeRun) return undefined;
  const journal = deps.store.journal;
  const epoch = document.execution.journalEpoch ?? 0;
  // The replaced producer can journal nothing past the fork from now on (fence.ts); one journal read.
  const order = journal ? await fenceEpoch(journal, target.threadId, target.executionId, epoch - 1, deps.clock, target.known) : canonicalOrder([]);
  const fork = order.entries.at(-1);
  const runId = document.activeRun.runId;
  // The producer it replaces may have died before journaling the run's start: nobody saw any of it then.
  const startJournaled = runStartJournaled(order, runId);
  const spans = startJournaled ? openSpansOfLastRun(order) : undefined;
  const log = deps.logs.open({
    journal,
    threadId: target.threadId,
    executionId: target.executionId,
    epoch,
    start: { kind: 'takeover', runId, fromEpoch: fork?.epoch ?? epoch - 1, fromSeq: fork?.seq ?? 0 },
    logger: deps.logger,
  });
  // The fork point is durable before the new epoch says anything (docs/protocol.md §6.15).
  await log.open();
  const logger = deps.logger.child({ threadId: target.threadId, runId, executionId: target.executionId, takeover: epoch });
  logger.info('run taken over', { fromEpoch: fork?.epoch, fromSeq: fork?.seq, startJournaled });
  const thread = new RunThread(deps.store, target.threadId, leaseId, target.executionId, document, outcome.state.revision);
  const session = new RunSession(
    { ...deps, logger },
    requestOf(document, runId),
    target.language,
    thread,
    (event, textCursor) => log.emit(event, textCursor),
    () => log.fence(),
  );
  session.secretsUnknown = true;
  const textChars = (startJournaled ? fork?.k : undefined) ?? document.execution.textChars ?? 0;
  if (spans) session.translator.restore(spans, textChars);
  session.continueFromCursor(textChars);
  if (spans?.sessionEmitted) session.sessionAlreadyEmitted();
  if (!startJournaled) {
    session.emit(session.runStarted());
    session.emitAll(session.translator.reopenSteps());
  }
  // The run keeps the grace its caller asked for (docs/protocol.md §6.15 "Whose grace").
  const resumable = deps.logs.resumable(log, deps.store, runGraceMs(document.activeRun, deps.maxGraceMs));
  void followRun(session, { signal: target.signal, resumable }, (signal) => streamTakeover(session, signal))
    .catch((error: unknown) => logger.error('takeover failed unexpectedly', { error: errorFields(error) }))
    .finally(() => deps.logs.close({ threadId: target.threadId, executionId: target.executionId, log, store: deps.store, logger }));
  return { log, order };
}

/**
 * The run's identity as a request: the takeover sends the kernel nothing of its own — no message,
 * no answer — it only follows the task, so only the run's ids and workspace matter.
 */
function requestOf(document: ThreadDocument, runId: string): RunRequest {
  const { execution } = document;
  return {
    threadId: document.threadId,
    runId,
    parentRunId: undefined,
    iacCode: { schemaVersion: 1, rosInvocationId: execution.rosInvocationId, cwd: document.cwd },
    cwd: document.cwd,
    resume: undefined,
    userMessage: undefined,
    digest: '',
    // No admission stands on it: the reader that takes the run over was admitted to the thread already (admit-reattach.ts).
    caller: SERVICE,
  };
}
