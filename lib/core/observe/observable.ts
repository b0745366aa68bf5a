/**
 * Whether an execution can be observed, decided from the stored thread document alone and so
 * answered before the stream (docs/protocol.md §2.1, §6.14). Nothing is written: observing takes
 * no lease and never meets THREAD_BUSY.
 */
import { AdapterError } from '../errors.js';
import { StoreError, type ThreadStore } from '../ports.js';
import { readThread } from '../thread/compare-and-swap.js';
import type { ThreadDocument } from '../thread/document.js';
import { answeredAsMissing, foreignTo } from '../thread/ownership.js';
import { isExecutionTerminal } from '../thread/run-transitions.js';
import type { ObservationRequest } from './observation-request.js';

/** An admitted observation: the document as read and the task to follow. */
export interface Observation {
  request: ObservationRequest;
  document: ThreadDocument;
  taskId: string;
}

/**
 * The current execution has a live task (docs/protocol.md §6.14): the kernel gave it a task, it
 * is not terminal, and either a run holds the thread's lease (it is streaming, or its instance
 * died and the lease has not been taken over) or an interrupt is pending (the task is parked on
 * it). A normal turn that finished keeps its task id but releases the lease with nothing pending:
 * its task only waits for the next turn, so there is nothing to observe.
 */
export function liveTaskOf(document: ThreadDocument): string | undefined {
  const { execution } = document;
  if (!execution.taskId || isExecutionTerminal(document, execution.executionId)) return undefined;
  if (document.activeRun === null && execution.pending.length === 0) return undefined;
  return execution.taskId;
}

/**
 * The checks in the peer's order (docs/protocol.md §6.14): no thread or no live task → 404
 * EXECUTION_NOT_FOUND; then another current execution, another `rosInvocationId`, or a `runId`
 * never admitted on the thread → 409 OBSERVATION_IDENTITY_CHANGED.
 */
export function decideObservation(document: ThreadDocument | undefined, request: ObservationRequest): Observation {
  // Another person's thread is no thread (docs/protocol.md §6.3).
  const foreign = foreignTo(document, request.caller);
  if (foreign) throw answeredAsMissing(new AdapterError('EXECUTION_NOT_FOUND', 'executionNotObservable'), foreign);
  const taskId = document ? liveTaskOf(document) : undefined;
  if (!document || !taskId) throw new AdapterError('EXECUTION_NOT_FOUND', 'executionNotObservable');
  const { execution } = document;
  const sameIdentity = request.executionId === execution.executionId && request.rosInvocationId === execution.rosInvocationId && document.runDigests[request.runId] !== undefined;
  if (!sameIdentity) throw new AdapterError('OBSERVATION_IDENTITY_CHANGED', 'observationIdentityChanged');
  return { request, document, taskId };
}

/** Reads the thread (a store failure or a corrupt document is 503 STATE_UNAVAILABLE) and decides. */
export async function admitObservation(store: ThreadStore, request: ObservationRequest): Promise<Observation> {
  let document: ThreadDocument | undefined;
  try {
    ({ document } = await readThread(store, request.threadId));
  } catch (error) {
    if (error instanceof StoreError) throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
    throw error;
  }
  return decideObservation(document, request);
}
