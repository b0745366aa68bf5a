/**
 * Admission (docs/protocol.md §6.4; docs/architecture.md §3.4): read the thread, decide, write — one compare-and-swap
 * (docs/architecture.md §3), re-decided when another instance changed the thread in between. A
 * store failure before the stream is 503 STATE_UNAVAILABLE; nothing is half-written because the
 * write is one CAS.
 */
import { AdapterError } from '../errors.js';
import { StoreError, type ThreadStore } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import { type AdmissionContext, admitRun } from '../thread/admission.js';
import { compareAndSwap } from '../thread/compare-and-swap.js';
import { RunThread } from './run-thread.js';

export interface Admitted {
  thread: RunThread;
  orphanTaskId: string | undefined;
}

export async function admit(store: ThreadStore, request: RunRequest, context: () => AdmissionContext): Promise<Admitted> {
  try {
    const { value, state } = await compareAndSwap(store, request.threadId, (current) => {
      // A fresh lease id and clock reading for every attempt: each decision stands on its own.
      const decision = context();
      const admission = admitRun(current.document, request, decision);
      return { write: admission.document, value: { leaseId: decision.leaseId, admission } };
    });
    const { leaseId, admission } = value;
    const thread = new RunThread(store, request.threadId, leaseId, admission.document.execution.executionId, admission.document, state.revision);
    return { thread, orphanTaskId: admission.orphanTaskId };
  } catch (error) {
    // Any store failure (unavailable, corrupt, a thread that kept changing) is 503 for this thread only.
    throw error instanceof StoreError ? new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error }) : error;
  }
}
