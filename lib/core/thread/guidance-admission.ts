/**
 * Admission of a guidance run (docs/protocol.md §6.13): a `POST /` with `iacCode.activeGuidance:
 * true` steers a pipeline that is running right now. A pure decision over the stored document, in
 * the peer's order: no thread → EXECUTION_LOST; runId reuse → DUPLICATE_RUN_ID / RUN_ID_CONFLICT;
 * THREAD_BUSY is skipped (the owning run holds the lease, and keeps it); cwd/userId →
 * THREAD_BINDING_CONFLICT; a resume, another run mode or no live task → EXECUTION_LOST; pending
 * interrupts → RESUME_REQUIRED. Admitted, only the run digest is recorded: no lease, no rotation,
 * and the request's rosInvocationId is neither compared nor adopted.
 */
import { AdapterError } from '../errors.js';
import type { RunRequest } from '../protocol/run-request.js';
import { MAX_RUN_DIGESTS } from './admission.js';
import type { ThreadDocument } from './document.js';
import { newestEntries, ownValue, withEntry } from './keyed-record.js';
import { answeredAsMissing, foreignTo } from './ownership.js';
import { isExecutionTerminal } from './run-transitions.js';

/** Where the guidance goes: the live task of the thread's current execution. */
export interface GuidanceTarget {
  contextId: string;
  taskId: string;
}

export interface GuidanceAdmission {
  document: ThreadDocument;
  target: GuidanceTarget;
}

/**
 * The execution has a task to guide when it has one and is not terminal. With interrupts pending
 * that task is parked on them (RESUME_REQUIRED); otherwise it is running only while a run holds —
 * or held, on an instance that died — the lease. A run that ended normally released the lease and
 * left its task parked at iac-code's "turn done": nothing is running to guide (the peer clears the
 * task at that point and answers EXECUTION_LOST too).
 */
function currentTask(document: ThreadDocument): string | undefined {
  const { execution } = document;
  return execution.taskId && !isExecutionTerminal(document, execution.executionId) ? execution.taskId : undefined;
}

export function decideGuidance(stored: ThreadDocument | undefined, request: RunRequest): GuidanceAdmission {
  // Another person's thread is no thread (docs/protocol.md §6.3).
  const foreign = foreignTo(stored, request.caller);
  if (foreign) throw answeredAsMissing(new AdapterError('EXECUTION_LOST', 'executionLostResume'), foreign);
  if (!stored) throw new AdapterError('EXECUTION_LOST', 'executionLostResume');
  const previousDigest = ownValue(stored.runDigests, request.runId);
  if (previousDigest !== undefined) throw new AdapterError(previousDigest === request.digest ? 'DUPLICATE_RUN_ID' : 'RUN_ID_CONFLICT', 'runIdUsed');
  if (stored.cwd !== request.cwd || stored.userId !== (request.iacCode.userId ?? null)) throw new AdapterError('THREAD_BINDING_CONFLICT', 'threadBindingConflict');
  const taskId = currentTask(stored);
  if (request.resume !== undefined || request.iacCode.runMode !== 'pipeline' || !taskId) throw new AdapterError('EXECUTION_LOST', 'executionLostResume');
  if (stored.execution.pending.length > 0) throw new AdapterError('RESUME_REQUIRED', 'resumeRequired');
  if (stored.activeRun === null) throw new AdapterError('EXECUTION_LOST', 'executionLostResume');
  return {
    document: { ...stored, runDigests: newestEntries(withEntry(stored.runDigests, request.runId, request.digest), MAX_RUN_DIGESTS) },
    target: { contextId: stored.contextId, taskId },
  };
}
