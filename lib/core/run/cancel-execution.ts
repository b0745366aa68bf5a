/**
 * The cancel extension (SPEC §4 "Cancel"; contract §D.7). It may land on any instance: it acts
 * only through the thread store and the A2A kernel. The write comes first — clearing pending
 * interrupts, ending the execution and releasing the lease in one compare-and-swap — so a live
 * stream on another instance sees it (RUN_ERROR CANCELLED) even if CancelTask cannot be delivered.
 */
import { errorFields } from '../error-fields.js';
import { AdapterError } from '../errors.js';
import { type A2AKernel, type Logger, StoreConflictError, type ThreadStore } from '../ports.js';
import { cancelCurrentExecution } from '../thread/interrupt-transitions.js';
import { parseThreadDocument } from '../thread/parse-document.js';
import { isExecutionTerminal } from '../thread/run-transitions.js';

export interface CancelRequest {
  executionId: string;
  threadId: string;
  rosInvocationId: string;
}

export interface CancelOutcome {
  executionId: string;
  status: 'cancelled' | 'already_terminal';
}

const MAX_ATTEMPTS = 8;

function notFound(): AdapterError {
  return new AdapterError('EXECUTION_NOT_FOUND', 'executionNotFound');
}

async function state<T>(call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StoreConflictError || error instanceof AdapterError) throw error;
    throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
  }
}

export async function cancelExecution(store: ThreadStore, kernel: A2AKernel, request: CancelRequest, logger: Logger): Promise<CancelOutcome> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const stored = await state(() => store.load(request.threadId));
    if (!stored) throw notFound();
    const document = await state(() => parseThreadDocument(stored.document, request.threadId));
    const execution = document.execution;
    if (request.executionId !== execution.executionId) {
      // An earlier, rotated execution matches the rosInvocationId it ran under.
      if (document.terminalExecutions[request.executionId] !== request.rosInvocationId) throw notFound();
      return { executionId: request.executionId, status: 'already_terminal' };
    }
    if (request.rosInvocationId !== execution.rosInvocationId) throw notFound();
    if (isExecutionTerminal(document, execution.executionId)) return { executionId: request.executionId, status: 'already_terminal' };
    try {
      await state(() => store.save(request.threadId, cancelCurrentExecution(document), stored.revision));
    } catch (error) {
      if (error instanceof StoreConflictError) continue;
      throw error;
    }
    if (execution.taskId) {
      await kernel.cancelTask(execution.taskId).catch((error: unknown) => logger.warn('CancelTask failed after cancelling the execution', { error: errorFields(error) }));
    }
    return { executionId: request.executionId, status: 'cancelled' };
  }
  throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable');
}
