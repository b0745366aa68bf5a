/**
 * A resume run (docs/protocol.md §5.4, §5.5): pre-flight against the kernel, then
 * reconciliation and validation of every answer, and only then delivery. Until A2A accepts an
 * answer every failure leaves the interrupt pending and the task parked, so a retry works.
 */
import { TERMINAL_STATES, unwrapTask } from '../a2a/inbound.js';
import { answerDigest } from '../interrupts/answers.js';
import { hasInputProjection, requiredInputs } from '../interrupts/inputs.js';
import { toInterrupt } from '../interrupts/interrupt-object.js';
import { planResume, reconcilePending } from '../interrupts/resume-plan.js';
import { KernelRpcError } from '../ports.js';
import type { ResumeEntry } from '../protocol/schemas.js';
import type { ThreadDocument } from '../thread/document.js';
import { cancelCurrentExecution, commitInterrupts, replacePending } from '../thread/interrupt-transitions.js';
import { absorbIdentities } from './consume-stream.js';
import { recoverPipeline } from './pipeline-recovery.js';
import { deliverAnswers } from './resume-delivery.js';
import { classifyRunError, protocolViolation, RunFailure } from './run-failure.js';
import type { RunSession } from './run-session.js';

/** A2A's JSON-RPC code for an unknown task. */
const TASK_NOT_FOUND = -32001;

function appliedAnswers(document: ThreadDocument): Map<string, string> {
  const executionId = document.execution.executionId;
  return new Map(document.appliedResumes.filter((applied) => applied.executionId === executionId).map((applied) => [applied.interruptId, applied.digest]));
}

/** Before an answer is accepted nothing is abandoned: the interrupt stays pending (docs/protocol.md §5.7). */
function keepInterrupt(error: unknown): RunFailure {
  const failure = classifyRunError(error);
  return new RunFailure(failure.code, failure.messageKey, false, { cause: error });
}

/**
 * The kernel no longer has the task or the session: the execution cannot go on, so it ends — its
 * pending interrupts with it — and the thread is free for a new turn (docs/protocol.md §5.4).
 * Nothing is sent to the kernel (docs/protocol.md §5.4).
 */
async function loseExecution(session: RunSession, key: 'executionLostTask' | 'executionLostSession'): Promise<never> {
  await session.thread.update(cancelCurrentExecution);
  throw new RunFailure('EXECUTION_LOST', key, false, { leaseLost: true });
}

export async function streamResume(session: RunSession, entries: readonly ResumeEntry[], signal: AbortSignal): Promise<void> {
  const { thread, kernel } = session;
  const document = thread.document;
  const taskId = document.execution.taskId;
  const applied = appliedAnswers(document);

  // 1. Nothing to resume: either every answer was already applied, or the execution is gone.
  if (!taskId || document.execution.pending.length === 0) {
    const allApplied = entries.length > 0 && entries.every((entry) => applied.get(entry.interruptId) === answerDigest(entry));
    throw allApplied ? new RunFailure('RESUME_ALREADY_APPLIED', 'resumeAlreadyApplied', false) : new RunFailure('EXECUTION_LOST', 'executionLostTask', false);
  }

  // 2. The iac-code session must be restorable (docs/protocol.md §7.8).
  if (session.sessionId) {
    const restored = await kernel.ensureSessionRestored({ cwd: document.cwd, sessionId: session.sessionId, taskId }, { signal }).catch((error: unknown) => {
      throw keepInterrupt(error);
    });
    if (restored.outcome === 'missing') await loseExecution(session, 'executionLostSession');
    if (restored.outcome === 'backupNotReady') throw new RunFailure('SESSION_BACKUP_NOT_READY', 'sessionBackupNotReady', false);
  }

  // 3. The task snapshot, with identity checks.
  const found = await kernel.getTask(taskId, 100, { signal }).catch((error: unknown) => {
    if (error instanceof KernelRpcError && error.rpcCode === TASK_NOT_FOUND) return undefined;
    throw keepInterrupt(error);
  });
  if (!found) return loseExecution(session, 'executionLostTask');
  const snapshot = unwrapTask(found);
  if (snapshot.taskId !== taskId) throw keepInterrupt(protocolViolation(`GetTask answered task ${String(snapshot.taskId)}`));
  await absorbIdentities(session, snapshot).catch((error: unknown) => {
    throw keepInterrupt(error);
  });
  // The kernel ended the task: nothing can be answered any more.
  if (snapshot.state && TERMINAL_STATES.has(snapshot.state)) return loseExecution(session, 'executionLostTask');

  // 4. The snapshot's signals, without its status text and pipeline events (docs/protocol.md §5.4).
  session.emitAll(session.translator.apply(snapshot, { statusText: false }));

  // 5. Pipeline catch-up after the persisted cursor; a kernel without pipeline state answers 404.
  await recoverPipeline(session, signal).catch((error: unknown) => {
    throw keepInterrupt(error);
  });

  // 6. Reconcile pending with the snapshot, then decide.
  const answering = new Set(entries.map((entry) => entry.interruptId));
  const pending = reconcilePending(
    document.execution.pending,
    { inputs: requiredInputs(snapshot.iac), hasProjection: hasInputProjection(snapshot.iac) },
    answering,
    new Set(applied.keys()),
  );
  const plan = planResume({ entries, pending, knownBefore: new Set(document.execution.pending.map((item) => item.id)), applied });
  // A rejected resume changes nothing: an interrupt discovered now is stored only once it is
  // announced or answered, so a later resume still treats it as new (docs/protocol.md §5.5).
  if (plan.kind === 'fail') throw new RunFailure(plan.code, plan.key, false);
  if (JSON.stringify(pending) !== JSON.stringify(document.execution.pending)) await thread.update((current) => replacePending(current, pending));

  switch (plan.kind) {
    case 'moreInterrupts': {
      // Announce every pending interrupt again; nothing is sent to A2A and no session event.
      const committed = await thread.update((current) => commitInterrupts(current, [], session.translator.durableState()));
      session.emitAll(session.translator.closeSpans());
      session.emit(session.runFinished({ type: 'interrupt', interrupts: committed.execution.pending.map(toInterrupt) }));
      return;
    }
    case 'cancelTask':
      await kernel.cancelTask(taskId, { signal }).catch((error: unknown) => {
        throw keepInterrupt(error);
      });
      await thread.update(cancelCurrentExecution);
      session.emit(session.runError(new RunFailure('CANCELLED', 'cancelledByResponse', false)));
      return;
    case 'deliver':
      await deliverAnswers(session, plan.answers, signal);
      return;
  }
}
