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
 * A reader follows the detached run from another instance: its deadline moves to `until` (never
 * back), so the sweeper does not end it under the reader (docs/design/reattach.md "Follow").
 */
export function keepDetached(document: ThreadDocument, runId: string, until: number): ThreadDocument {
  const lease = document.activeRun;
  if (!lease || lease.runId !== runId || lease.detachedUntil === undefined || lease.detachedUntil >= until) return document;
  return { ...document, activeRun: { ...lease, detachedUntil: until } };
}

/**
 * A stopping instance hands its run over (docs/design/reattach.md "Hand-over"): detached, and its
 * lease expired now, so the next reader on any instance takes it over at once.
 */
export function handOverRun(document: ThreadDocument, until: number, now: number): ThreadDocument {
  const detached = markDetached(document, until);
  return detached.activeRun ? { ...detached, activeRun: { ...detached.activeRun, expiresAt: Math.min(detached.activeRun.expiresAt, now) } } : detached;
}

/**
 * Whether a reader may take the execution's live run over (docs/design/reattach.md "Takeover"):
 * only when its producer is gone — its lease expired unrenewed (frozen, stopped, killed) or was
 * handed over. A producer that is alive, detached or not, is followed through its journal.
 */
export function runToTakeOver(document: ThreadDocument, executionId: string, now: number): boolean {
  const lease = document.activeRun;
  if (!lease || document.execution.executionId !== executionId || !document.execution.taskId) return false;
  return lease.expiresAt <= now;
}

/** The takeover's write: a new lease for the same run, the next producer epoch, attached again. */
export function takeOverRun(document: ThreadDocument, lease: { leaseId: string; expiresAt: number }): ThreadDocument {
  if (!document.activeRun) return document;
  const execution = document.execution;
  // The same run — its grace the one its caller asked for (docs/protocol.md §6.15 "Whose grace") — attached again.
  const { detachedUntil: _attached, ...run } = document.activeRun;
  return { ...document, execution: { ...execution, journalEpoch: (execution.journalEpoch ?? 0) + 1 }, activeRun: { ...run, leaseId: lease.leaseId, expiresAt: lease.expiresAt } };
}

/** A detached run whose grace is over (the sweeper's test, docs/protocol.md §6.15). */
export function detachedPast(document: ThreadDocument, executionId: string, now: number): boolean {
  const until = document.activeRun?.detachedUntil;
  return until !== undefined && until <= now && document.execution.executionId === executionId;
}
