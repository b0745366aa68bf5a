/**
 * Pure transitions of the thread document while a run holds its lease (docs/protocol.md §6.9; docs/architecture.md §2.4). Each is
 * applied inside one compare-and-swap by RunThread.update.
 */
import type { DurableRunState } from '../translate/run-translator.js';
import type { ThreadDocument } from './document.js';
import { ownValue, withEntry } from './keyed-record.js';

export function renewLease(document: ThreadDocument, expiresAt: number): ThreadDocument {
  if (!document.activeRun) return document;
  return { ...document, activeRun: { ...document.activeRun, expiresAt } };
}

/** Task and session ids are durable before any event reveals them (docs/protocol.md §6.9). */
export function recordIdentities(document: ThreadDocument, ids: { taskId?: string | undefined; sessionId?: string | undefined }): ThreadDocument {
  return {
    ...document,
    iacCodeSessionId: ids.sessionId ?? document.iacCodeSessionId,
    execution: ids.taskId ? { ...document.execution, taskId: ids.taskId, lastTaskId: ids.taskId } : document.execution,
  };
}

export interface RunEnd {
  durable: DurableRunState;
  /** The execution reached a terminal state (A2A terminal, cancelled, or abandoned). */
  terminal: boolean;
  /** The A2A task is gone (cancelled by the adapter): forget it. */
  clearTask: boolean;
}

/** Ends the run: the same write releases the lease (docs/protocol.md §6.6). */
export function endRun(document: ThreadDocument, end: RunEnd): ThreadDocument {
  const execution = document.execution;
  return {
    ...document,
    execution: { ...execution, ...end.durable, taskId: end.clearTask ? null : execution.taskId },
    terminalExecutions: end.terminal ? withEntry(document.terminalExecutions, execution.executionId, execution.rosInvocationId) : document.terminalExecutions,
    activeRun: null,
  };
}

export function isExecutionTerminal(document: ThreadDocument, executionId: string): boolean {
  return ownValue(document.terminalExecutions, executionId) !== undefined;
}
