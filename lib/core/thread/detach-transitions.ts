/**
 * The thread document's side of runs that outlive their connection (docs/protocol.md §6.15):
 * a detached run's deadline, a reader coming back, and a reader taking the run over from a producer
 * that is gone. Pure; each applied inside one compare-and-swap.
 */
import type { ThreadDocument } from './document.js';

/** The run's last reader left: it goes on until `until` unless a reader comes back. */
export function markDetached(document: ThreadDocument, until: number): ThreadDocument {
  if (!document.activeRun) return document;
  return { ...document, activeRun: { ...document.activeRun, detachedUntil: until } };
}

/** A reader came back: the run is no longer on its way to being cancelled. */
export function clearDetached(document: ThreadDocument): ThreadDocument {
  if (!document.activeRun || document.activeRun.detachedUntil === undefined) return document;
  const { detachedUntil: _gone, ...lease } = document.activeRun;
  return { ...document, activeRun: lease };
}

/**
 * Whether a reader may take the execution's live run over (docs/protocol.md §6.15 "Takeover"): its
 * producer let it go (detached) or died (its lease expired unrenewed).
 */
export function runToTakeOver(document: ThreadDocument, executionId: string, now: number): boolean {
  const lease = document.activeRun;
  if (!lease || document.execution.executionId !== executionId || !document.execution.taskId) return false;
  return lease.detachedUntil !== undefined || lease.expiresAt <= now;
}

/** The takeover's write: a new lease for the same run, the next producer epoch, attached again. */
export function takeOverRun(document: ThreadDocument, lease: { leaseId: string; expiresAt: number }): ThreadDocument {
  const runId = document.activeRun?.runId;
  if (runId === undefined) return document;
  const execution = document.execution;
  return { ...document, execution: { ...execution, journalEpoch: (execution.journalEpoch ?? 0) + 1 }, activeRun: { runId, leaseId: lease.leaseId, expiresAt: lease.expiresAt } };
}

/** A detached run whose grace is over (the sweeper's test, docs/protocol.md §6.15). */
export function detachedPast(document: ThreadDocument, executionId: string, now: number): boolean {
  const until = document.activeRun?.detachedUntil;
  return until !== undefined && until <= now && document.execution.executionId === executionId;
}
