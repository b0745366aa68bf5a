/**
 * Admission with compare-and-swap (SPEC §4–§5): read the thread, decide, write; on a conflict
 * another instance changed the thread, so read and decide again. Store failures before the
 * stream are 503 STATE_UNAVAILABLE; nothing is half-written because the write is one CAS.
 */
import { AdapterError } from '../errors.js';
import { StoreConflictError, type ThreadStore } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import { type AdmissionContext, admitRun } from '../thread/admission.js';
import { parseThreadDocument } from '../thread/parse-document.js';
import { RunThread } from './run-thread.js';

const MAX_ADMISSION_ATTEMPTS = 8;

export interface Admitted {
  thread: RunThread;
  orphanTaskId: string | undefined;
}

export async function admit(store: ThreadStore, request: RunRequest, context: () => AdmissionContext): Promise<Admitted> {
  for (let attempt = 0; attempt < MAX_ADMISSION_ATTEMPTS; attempt += 1) {
    const stored = await stateCall(() => store.load(request.threadId));
    const current = stored ? stateParse(() => parseThreadDocument(stored.document, request.threadId)) : undefined;
    const decision = context();
    const admission = admitRun(current, request, decision);
    try {
      const revision = await store.save(request.threadId, admission.document, stored?.revision ?? 0);
      const thread = new RunThread(store, request.threadId, decision.leaseId, admission.document.execution.executionId, admission.document, revision);
      return { thread, orphanTaskId: admission.orphanTaskId };
    } catch (error) {
      if (error instanceof StoreConflictError) continue;
      throw stateUnavailable(error);
    }
  }
  throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable');
}

async function stateCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw stateUnavailable(error);
  }
}

function stateParse<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw stateUnavailable(error);
  }
}

/** Any store failure (unavailable, corrupt, unexpected) before the stream is 503 for this thread only. */
function stateUnavailable(error: unknown): AdapterError {
  return error instanceof AdapterError ? error : new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
}
