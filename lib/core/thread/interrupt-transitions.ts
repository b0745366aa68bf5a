/**
 * Pure transitions for interrupts, answers and cancellation (docs/protocol.md §5.7, §6.7).
 */
import type { RequiredInput } from '../interrupts/inputs.js';
import type { DurableRunState } from '../translate/run-translator.js';
import type { PendingInterrupt, ThreadDocument } from './document.js';
import { withEntry } from './keyed-record.js';

/** Adds inputs to pending (keeping order, upgrading a known input to sideband when seen so). */
export function mergePending(pending: readonly PendingInterrupt[], inputs: readonly RequiredInput[]): PendingInterrupt[] {
  const merged = pending.map((item) => ({ ...item }));
  for (const input of inputs) {
    const known = merged.find((item) => item.id === input.id);
    if (known) known.sideband ||= input.sideband;
    else merged.push({ id: input.id, input: input.input, sideband: input.sideband });
  }
  return merged;
}

export function isApplied(document: ThreadDocument, interruptId: string): boolean {
  return document.appliedResumes.some((applied) => applied.executionId === document.execution.executionId && applied.interruptId === interruptId);
}

/**
 * Commits interrupts and releases the lease in the same write (docs/protocol.md §6.6: a resume right
 * after an interrupt is never THREAD_BUSY), naming the run that announces them: a resume may reuse
 * its runId (§6.2).
 */
export function commitInterrupts(document: ThreadDocument, inputs: readonly RequiredInput[], durable: DurableRunState): ThreadDocument {
  const interruptedRunId = document.activeRun?.runId ?? document.execution.interruptedRunId;
  return {
    ...document,
    execution: { ...document.execution, ...durable, pending: mergePending(document.execution.pending, inputs), ...(interruptedRunId === undefined ? {} : { interruptedRunId }) },
    activeRun: null,
  };
}

export function replacePending(document: ThreadDocument, pending: PendingInterrupt[]): ThreadDocument {
  return { ...document, execution: { ...document.execution, pending } };
}

/** Answers accepted by A2A leave pending and are remembered, so they never reach A2A twice. */
export function acceptAnswers(document: ThreadDocument, answers: ReadonlyArray<{ interruptId: string; digest: string }>): ThreadDocument {
  const ids = new Set(answers.map((answer) => answer.interruptId));
  const executionId = document.execution.executionId;
  return {
    ...document,
    execution: { ...document.execution, pending: document.execution.pending.filter((item) => !ids.has(item.id)) },
    appliedResumes: [
      ...document.appliedResumes.filter((applied) => !(applied.executionId === executionId && ids.has(applied.interruptId))),
      ...answers.map((answer) => ({ executionId, interruptId: answer.interruptId, digest: answer.digest })),
    ],
  };
}

/** Ends the current execution: pending cleared, terminal, task forgotten, lease released. */
export function cancelCurrentExecution(document: ThreadDocument): ThreadDocument {
  const execution = document.execution;
  return {
    ...document,
    execution: { ...execution, pending: [], taskId: null },
    terminalExecutions: withEntry(document.terminalExecutions, execution.executionId, execution.rosInvocationId),
    activeRun: null,
  };
}
