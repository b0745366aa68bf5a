/**
 * Admission of a run into its thread (docs/protocol.md §6.4): a pure decision
 * over the stored document. The caller writes the result with one compare-and-swap; a conflict
 * means another instance changed the thread, so it re-reads and decides again.
 */

import { AdapterError } from '../errors.js';
import type { RunRequest } from '../protocol/run-request.js';
import { type Execution, newExecution, THREAD_SCHEMA_VERSION, type ThreadDocument } from './document.js';
import { keyedRecord, newestEntries, ownValue, withEntry } from './keyed-record.js';
import { answeredAsMissing, foreignTo } from './ownership.js';
import { contextIdOf, namespaceOf } from './thread-address.js';
import { holdingRun } from './thread-run.js';

/**
 * Bounds that keep the document small (docs/protocol.md §1.4): run ids remembered for idempotency, and rotated
 * executions remembered for the cancel route. Answers are remembered for the current execution only.
 */
export const MAX_RUN_DIGESTS = 1000;
export const MAX_TERMINAL_EXECUTIONS = 100;

export interface AdmissionContext {
  now: number;
  leaseTtlMs: number;
  newExecutionId: () => string;
  leaseId: string;
  /** The detach grace the request asked for, already bounded by the server's (lib/core/reattach/detach-grace.ts). */
  graceMs: number;
}

export interface Admission {
  document: ThreadDocument;
  /** A task left running by a run whose lease expired (its instance died); the taker cancels it. */
  orphanTaskId: string | undefined;
  /** True when a normal turn rotated the thread onto a new execution. */
  rotated: boolean;
}

export function admitRun(stored: ThreadDocument | undefined, request: RunRequest, context: AdmissionContext): Admission {
  const userId = request.iacCode.userId ?? null;
  const isResume = request.resume !== undefined;
  const lease = { runId: request.runId, leaseId: context.leaseId, expiresAt: context.now + context.leaseTtlMs, graceMs: context.graceMs };

  // A person reads only their own namespace (docs/protocol.md §6.3), so this meets only a document
  // there bound to someone else, which the adapter never writes: a resume is answered as for no
  // thread; a new turn cannot open a thread under an id that is taken, and says only that.
  const foreign = foreignTo(stored, request.caller);
  if (foreign) {
    throw answeredAsMissing(isResume ? new AdapterError('EXECUTION_LOST', 'executionLostResume') : new AdapterError('THREAD_BINDING_CONFLICT', 'threadBindingConflict'), foreign);
  }

  if (!stored) {
    if (isResume) throw new AdapterError('EXECUTION_LOST', 'executionLostResume');
    return {
      document: {
        schemaVersion: THREAD_SCHEMA_VERSION,
        threadId: request.threadId,
        // The caller's own namespace is where a new thread is created (docs/protocol.md §6.11).
        contextId: contextIdOf(request.threadId, namespaceOf(request.caller)),
        cwd: request.cwd,
        userId,
        iacCodeSessionId: null,
        execution: nextEpoch(newExecution(context.newExecutionId(), request.iacCode.rosInvocationId)),
        runDigests: keyedRecord([[request.runId, request.digest]]),
        appliedResumes: [],
        terminalExecutions: keyedRecord<string>(),
        activeRun: lease,
      },
      orphanTaskId: undefined,
      rotated: false,
    };
  }

  // A resume may reuse the runId of the run that announced its interrupts (docs/protocol.md §6.2):
  // the digest that id was admitted with stays; appliedResumes keeps a replay from sending twice.
  const reusesInterruptedRun = isResume && request.runId === stored.execution.interruptedRunId;
  const previousDigest = ownValue(stored.runDigests, request.runId);
  if (previousDigest !== undefined && !reusesInterruptedRun) {
    throw new AdapterError(previousDigest === request.digest ? 'DUPLICATE_RUN_ID' : 'RUN_ID_CONFLICT', 'runIdUsed');
  }
  const holder = stored.activeRun;
  const busy = holdingRun(stored, context.now);
  if (busy) {
    // Named only to a caller the thread is bound to: another workspace or user learns nothing of its runs.
    const bound = stored.cwd === request.cwd && stored.userId === userId;
    throw new AdapterError('THREAD_BUSY', busy.state === 'detached' ? 'threadBusyDetached' : 'threadBusy', bound ? busy : undefined);
  }
  if (stored.cwd !== request.cwd || stored.userId !== userId) {
    throw new AdapterError('THREAD_BINDING_CONFLICT', 'threadBindingConflict');
  }

  const execution = stored.execution;
  const hasPending = execution.pending.length > 0;
  // An expired lease belonged to an instance that died mid-run. Its task is orphaned unless it is
  // parked on a durable interrupt, which stays resumable (docs/protocol.md §6.6, §6.8).
  const orphanTaskId = holder && !hasPending ? (execution.taskId ?? undefined) : undefined;

  if (isResume) {
    if (request.iacCode.rosInvocationId !== execution.rosInvocationId) {
      throw new AdapterError('EXECUTION_LOST', 'executionLostRosInvocation');
    }
    return {
      document: {
        ...stored,
        execution: nextEpoch(execution),
        runDigests: reusesInterruptedRun ? stored.runDigests : newestEntries(withEntry(stored.runDigests, request.runId, request.digest), MAX_RUN_DIGESTS),
        activeRun: lease,
      },
      orphanTaskId,
      rotated: false,
    };
  }
  if (hasPending) throw new AdapterError('RESUME_REQUIRED', 'resumeRequired');

  // A later normal turn starts a new execution on the same A2A context (docs/protocol.md §6.5).
  return {
    document: {
      ...stored,
      execution: nextEpoch({ ...newExecution(context.newExecutionId(), request.iacCode.rosInvocationId), lastTaskId: execution.taskId ?? execution.lastTaskId }),
      runDigests: newestEntries(withEntry(stored.runDigests, request.runId, request.digest), MAX_RUN_DIGESTS),
      appliedResumes: [],
      terminalExecutions: newestEntries(withEntry(stored.terminalExecutions, execution.executionId, execution.rosInvocationId), MAX_TERMINAL_EXECUTIONS),
      activeRun: lease,
    },
    orphanTaskId,
    rotated: true,
  };
}

/** Every admitted run produces its execution's events as a new epoch of its journal (docs/protocol.md §6.15). */
export function nextEpoch(execution: Execution): Execution {
  return { ...execution, journalEpoch: (execution.journalEpoch ?? 0) + 1 };
}
