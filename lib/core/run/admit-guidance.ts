/**
 * Admission of a guidance run (docs/protocol.md §6.13): the pure decision of
 * lib/core/thread/guidance-admission.ts written with one compare-and-swap.
 */
import { AdapterError } from '../errors.js';
import { StoreError, type ThreadStore } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import { compareAndSwap } from '../thread/compare-and-swap.js';
import { decideGuidance, type GuidanceTarget } from '../thread/guidance-admission.js';

/**
 * Records the guidance's run digest with one compare-and-swap (docs/architecture.md §3.4). The
 * owning run's next write meets a newer revision, re-reads, finds its lease untouched and
 * re-applies its transition over this one. A store failure is 503 STATE_UNAVAILABLE.
 */
export async function admitGuidance(store: ThreadStore, request: RunRequest): Promise<GuidanceTarget> {
  try {
    const { value } = await compareAndSwap(store, request.threadId, ({ document }) => {
      const admission = decideGuidance(document, request);
      return { write: admission.document, value: admission.target };
    });
    return value;
  } catch (error) {
    throw error instanceof StoreError ? new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error }) : error;
  }
}
