/**
 * What a thread is doing, as a runner that holds nothing asks it (docs/protocol.md §6.16): a run
 * holding it — live, or detached within its grace — the interrupts its current execution waits on,
 * or nothing. Decided by the rule admission uses for THREAD_BUSY (§6.4), so "idle" here means a
 * new turn would be admitted (or answered RESUME_REQUIRED when interrupted). Pure.
 */
import type { Interrupt } from '@ag-ui/core';
import { toInterrupt } from '../interrupts/interrupt-object.js';
import type { ThreadDocument } from './document.js';

export type ThreadRun =
  | { executionId: string; runId: string; state: 'live' }
  | { executionId: string; runId: string; state: 'detached'; detachedUntil: number }
  | { executionId: string; runId: string | null; state: 'interrupted'; interrupts: Interrupt[] };

/** The thread's run now; null when it is idle. */
export function threadRunOf(document: ThreadDocument, now: number): ThreadRun | null {
  const { execution, activeRun: holder } = document;
  if (holder && (holder.expiresAt > now || (holder.detachedUntil ?? 0) > now)) {
    const base = { executionId: execution.executionId, runId: holder.runId };
    return holder.detachedUntil === undefined ? { ...base, state: 'live' } : { ...base, state: 'detached', detachedUntil: holder.detachedUntil };
  }
  if (execution.pending.length > 0) {
    return { executionId: execution.executionId, runId: execution.interruptedRunId ?? null, state: 'interrupted', interrupts: execution.pending.map(toInterrupt) };
  }
  return null;
}
