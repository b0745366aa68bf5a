/**
 * What this tab must remember across a reload (docs/protocol.md §5, §6.14), in session storage:
 *
 * - the thread on screen, reopened by a reload;
 * - the live run `{threadId, runId, rosInvocationId, executionId}` while it streams — exactly what
 *   `POST /extensions/iac-code/v1/executions/{executionId}/subscribe` needs to reattach; cleared
 *   when the run ends, or when the adapter says there is nothing left to watch;
 * - a thread's pending interrupts, so a reload shows their forms again at once (and checks them
 *   against the adapter through subscribe, with the run id kept beside them) and the answer is a
 *   resume.
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
const CURRENT_KEY = 'iac-code-console.current-thread';
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
  const record = read<Partial<LiveRunRecord>>(LIVE_KEY);
  if (typeof record?.threadId !== 'string' || typeof record.runId !== 'string' || typeof record.rosInvocationId !== 'string') return undefined;
  return record as LiveRunRecord;
}

export function clearLiveRun(runId: string): void {
  if (liveRun()?.runId === runId) sessionStorage.removeItem(LIVE_KEY);
}

export function rememberCurrentThread(threadId: string): void {
  sessionStorage.setItem(CURRENT_KEY, threadId);
}

export function currentThread(): string | undefined {
  return sessionStorage.getItem(CURRENT_KEY) ?? undefined;
}

export interface PendingRecord {
  interrupts: Interrupt[];
  /** The execution the interrupts belong to (cancel and subscribe need it). */
  executionId?: string;
  /** The run that announced them: subscribe names a run admitted on the thread. */
  runId?: string;
}

export function savePending(threadId: string, record: PendingRecord): void {
  if (record.interrupts.length === 0) sessionStorage.removeItem(pendingKey(threadId));
  else sessionStorage.setItem(pendingKey(threadId), JSON.stringify(record));
}

export function pendingOf(threadId: string): PendingRecord {
  const record = read<Partial<PendingRecord>>(pendingKey(threadId));
  return Array.isArray(record?.interrupts) ? (record as PendingRecord) : { interrupts: [] };
}

/** Drops the thread's pending interrupts from this tab (the thread was removed from the list). */
export function forgetPending(threadId: string): void {
  sessionStorage.removeItem(pendingKey(threadId));
}
