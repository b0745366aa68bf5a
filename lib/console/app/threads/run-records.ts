/**
 * What this tab must remember across a reload (docs/protocol.md §5, §6), in session storage:
 *
 * - the live run `{threadId, runId, rosInvocationId, executionId}` while it streams — exactly what
 *   `POST /extensions/iac-code/v1/executions/{executionId}/subscribe` needs to reattach (docs/protocol.md §6.14); cleared when the run ends;
 * - a thread's pending interrupts, so a reload shows their forms again and the answer is a resume.
 */
import type { Interrupt } from '@ag-ui/client';

export interface LiveRunRecord {
  threadId: string;
  runId: string;
  rosInvocationId: string;
  /** Known once the run's `iac-code.session.v1` event arrived. */
  executionId?: string;
}

const LIVE_KEY = 'iac-code-console.live-run';
const pendingKey = (threadId: string) => `iac-code-console.pending.${threadId}`;

function read<T>(key: string): T | undefined {
  try {
    const raw = sessionStorage.getItem(key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  } catch {
    return undefined;
  }
}

export function recordLiveRun(record: LiveRunRecord): void {
  sessionStorage.setItem(LIVE_KEY, JSON.stringify(record));
}

export function liveRun(): LiveRunRecord | undefined {
  return read<LiveRunRecord>(LIVE_KEY);
}

export function clearLiveRun(runId: string): void {
  if (liveRun()?.runId === runId) sessionStorage.removeItem(LIVE_KEY);
}

export interface PendingRecord {
  interrupts: Interrupt[];
  /** The execution the interrupts belong to (cancel needs it). */
  executionId?: string;
}

export function savePending(threadId: string, record: PendingRecord): void {
  if (record.interrupts.length === 0) sessionStorage.removeItem(pendingKey(threadId));
  else sessionStorage.setItem(pendingKey(threadId), JSON.stringify(record));
}

export function pendingOf(threadId: string): PendingRecord {
  return read<PendingRecord>(pendingKey(threadId)) ?? { interrupts: [] };
}
