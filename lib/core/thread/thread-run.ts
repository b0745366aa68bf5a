/**
 * What a thread is doing, as a runner that holds nothing asks it (docs/protocol.md §6.16): a run
 * holding it — live, or detached within its grace — the interrupts its current execution waits on,
 * or nothing. Decided by the rule admission uses for THREAD_BUSY (§6.4), so "idle" here means a
 * new turn would be admitted (or answered RESUME_REQUIRED when interrupted). Pure.
 */
import type { Interrupt } from '@ag-ui/core';
import type { ThreadHolder } from '../errors.js';
import { toInterrupt } from '../interrupts/interrupt-object.js';
import type { ThreadDocument } from './document.js';

export type ThreadRun = ThreadHolder | { executionId: string; runId: string | null; state: 'interrupted'; interrupts: Interrupt[] };

/**
 * The run holding the thread now, as THREAD_BUSY names it (docs/protocol.md §2.2, §6.4): its lease
 * unexpired, or detached within its grace — a detached run is live until its grace is over, even
 * once its producer stopped renewing (§6.15).
 */
export function holdingRun(document: ThreadDocument, now: number): ThreadHolder | undefined {
  const holder = document.activeRun;
  if (!holder || (holder.expiresAt <= now && (holder.detachedUntil ?? 0) <= now)) return undefined;
  const base = { executionId: document.execution.executionId, runId: holder.runId };
  return holder.detachedUntil === undefined ? { ...base, state: 'live' } : { ...base, state: 'detached', detachedUntil: holder.detachedUntil };
}

/** The thread's run now; null when it is idle. */
export function threadRunOf(document: ThreadDocument, now: number): ThreadRun | null {
  const holding = holdingRun(document, now);
  if (holding) return holding;
  const { execution } = document;
  if (execution.pending.length > 0) {
    return { executionId: execution.executionId, runId: execution.interruptedRunId ?? null, state: 'interrupted', interrupts: execution.pending.map(toInterrupt) };
  }
  return null;
}
