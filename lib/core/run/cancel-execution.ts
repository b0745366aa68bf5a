/**
 * The cancel extension (docs/protocol.md §6.7). It may land on any instance: it acts
 * only through the thread store and the A2A kernel. The write comes first — clearing pending
 * interrupts, ending the execution and releasing the lease in one compare-and-swap
 * (docs/architecture.md §3) — so a live stream on another instance sees it (RUN_ERROR CANCELLED)
 * even if CancelTask cannot be delivered.
 */
import type { Caller } from '../caller.js';
import { errorFields } from '../error-fields.js';
import { AdapterError } from '../errors.js';
import { type A2AKernel, type Logger, StoreError, type ThreadStore } from '../ports.js';
import { type CasDecision, compareAndSwap } from '../thread/compare-and-swap.js';
import type { ThreadDocument } from '../thread/document.js';
import { cancelCurrentExecution } from '../thread/interrupt-transitions.js';
import { ownValue } from '../thread/keyed-record.js';
import { answeredAsMissing, foreignTo } from '../thread/ownership.js';
import { isExecutionTerminal } from '../thread/run-transitions.js';

export interface CancelRequest {
  executionId: string;
  threadId: string;
  rosInvocationId: string;
  /** Who asks (docs/protocol.md §1.2): a person may cancel only their own threads' executions. */
  caller: Caller;
}

export interface CancelOutcome {
  executionId: string;
  status: 'cancelled' | 'already_terminal';
}

interface CancelDecision {
  status: CancelOutcome['status'];
  /** The task to cancel once the write landed. */
  taskId: string | undefined;
}

function notFound(): AdapterError {
  return new AdapterError('EXECUTION_NOT_FOUND', 'executionNotFound');
}

const ALREADY_TERMINAL: CasDecision<CancelDecision> = { value: { status: 'already_terminal', taskId: undefined } };

function decideCancel(document: ThreadDocument | undefined, request: CancelRequest): CasDecision<CancelDecision> {
  // Another person's thread is no thread (docs/protocol.md §6.3).
  const foreign = foreignTo(document, request.caller);
  if (foreign) throw answeredAsMissing(notFound(), foreign);
  if (!document) throw notFound();
  const execution = document.execution;
  if (request.executionId !== execution.executionId) {
    // An earlier, rotated execution matches the rosInvocationId it ran under.
    if (ownValue(document.terminalExecutions, request.executionId) !== request.rosInvocationId) throw notFound();
    return ALREADY_TERMINAL;
  }
  if (request.rosInvocationId !== execution.rosInvocationId) throw notFound();
  if (isExecutionTerminal(document, execution.executionId)) return ALREADY_TERMINAL;
  return { write: cancelCurrentExecution(document), value: { status: 'cancelled', taskId: execution.taskId ?? undefined } };
}

export async function cancelExecution(store: ThreadStore, kernel: A2AKernel, request: CancelRequest, logger: Logger): Promise<CancelOutcome> {
  let decided: CancelDecision;
  try {
    ({ value: decided } = await compareAndSwap(store, request.threadId, ({ document }) => decideCancel(document, request)));
  } catch (error) {
    throw error instanceof StoreError ? new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error }) : error;
  }
  if (decided.taskId) {
    await kernel.cancelTask(decided.taskId).catch((error: unknown) => logger.warn('CancelTask failed after cancelling the execution', { error: errorFields(error) }));
  }
  return { executionId: request.executionId, status: decided.status };
}
