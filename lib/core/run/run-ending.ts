/**
 * How a run ends (docs/protocol.md §7.7): the last A2A state decides success or failure; spans are closed
 * and the final write — which releases the lease in the same compare-and-swap — happens before
 * the terminal event is emitted.
 */
import { TERMINAL_STATES } from '../a2a/inbound.js';
import { errorFields } from '../error-fields.js';
import type { RequiredInput } from '../interrupts/inputs.js';
import { toInterrupt } from '../interrupts/interrupt-object.js';
import { StoreError } from '../ports.js';
import type { ThreadDocument } from '../thread/document.js';
import { cancelCurrentExecution, commitInterrupts } from '../thread/interrupt-transitions.js';
import { endRun } from '../thread/run-transitions.js';
import type { AguiEvent } from '../translate/events.js';
import type { StreamResult } from './consume-stream.js';
import { type KernelReason, kernelReason, secretsOf } from './kernel-reason.js';
import { classifyRunError, persistenceFailureKeepingInterrupt, RunFailure } from './run-failure.js';
import type { RunSession } from './run-session.js';

/**
 * The failure the last state reports, if any. A failed task carries the kernel's reason when it gave
 * one (docs/protocol.md §2.4): a FAILED that the kernel follows with INPUT_REQUIRED still ends the
 * run here, as a RUN_ERROR (§10.3 says why).
 */
export function failureForState(lastState: string | undefined, reason?: KernelReason): RunFailure | undefined {
  if (lastState === 'input-required' || lastState === 'completed') return undefined;
  if (lastState === 'canceled') return new RunFailure('CANCELLED', 'cancelled', false);
  if (lastState === 'failed' || lastState === 'rejected' || lastState === 'auth-required') {
    return new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', false, { kernelReason: reason });
  }
  // The stream ended while the task was still working: it is abandoned (docs/protocol.md §7.7).
  return new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', true);
}

/** Ends the run from what its last stream showed: an interrupt, success or failure. */
export async function finishRun(session: RunSession, result: StreamResult): Promise<void> {
  if (result.newInputs.length > 0) await finishWithInterrupt(session, result.newInputs);
  else await finishFromState(session, result.lastState);
}

/**
 * Commit before announce (docs/protocol.md §6.9): the interrupts are durable — and the lease released in the
 * same write — before RUN_FINISHED reveals them. A failed commit cancels the task and shows
 * nothing (RUN_ERROR STATE_PERSISTENCE_FAILED via the caller's failure path).
 */
export async function finishWithInterrupt(session: RunSession, inputs: readonly RequiredInput[]): Promise<void> {
  session.translator.rememberText();
  let document: ThreadDocument;
  try {
    document = await session.thread.update((current) => commitInterrupts(current, inputs, session.translator.durableState()));
  } catch (error) {
    document = await committedAnyway(session, inputs, error);
  }
  session.emitSessionOnce();
  session.emitAll(session.translator.closeSpans());
  session.emit(session.runFinished({ type: 'interrupt', interrupts: document.execution.pending.map(toInterrupt) }));
}

/**
 * A commit whose answer was lost may still have landed: then the interrupt is durable and is
 * announced. Otherwise nothing is shown and the task is cancelled even though the stored document
 * may list an older interrupt — the one being committed was never durable (docs/protocol.md §6.9).
 */
async function committedAnyway(session: RunSession, inputs: readonly RequiredInput[], error: unknown): Promise<ThreadDocument> {
  if (!(error instanceof StoreError)) throw classifyRunError(error);
  const failure = persistenceFailureKeepingInterrupt(error);
  const current = await session.thread.refresh().catch(() => undefined);
  if (!current) throw failure;
  const pending = new Set(current.execution.pending.map((item) => item.id));
  const landed = current.execution.executionId === session.thread.executionId && current.activeRun === null && inputs.every((input) => pending.has(input.id));
  if (!landed) throw failure;
  return current;
}

/** Normal path: session event, closed spans, final write, then RUN_FINISHED or RUN_ERROR. */
export async function finishFromState(session: RunSession, lastState: string | undefined): Promise<void> {
  const account = session.translator.failure;
  const told = session.secretsUnknown && account ? { text: undefined, errorId: account.errorId } : account;
  const reported = failureForState(lastState, kernelReason(told, secretsOf(session.request.iacCode)));
  // A turn never ends in success while answers are still owed: announce what is pending instead.
  if (!reported && session.thread.document.execution.pending.length > 0) {
    await finishWithInterrupt(session, []);
    return;
  }
  session.emitSessionOnce();
  // The spans' closing events go out with the terminal event, in one journal write (docs/design/reattach.md "Cost").
  const closing = session.translator.closeSpans();
  const end = (terminal: AguiEvent): void => session.emitAll([...closing, terminal]);
  if (reported?.abandonTask) {
    session.emitAll(closing);
    await abandonRun(session, reported);
    return;
  }
  // Read before this run's own final write, which may itself end the execution.
  const failure = reported ? await explainFailure(session, reported) : undefined;
  if (failure?.leaseLost) {
    end(session.runError(failure));
    return;
  }
  try {
    await session.thread.update((document) =>
      endRun(document, { durable: session.translator.durableState(), terminal: lastState !== undefined && TERMINAL_STATES.has(lastState), clearTask: false }),
    );
  } catch (error) {
    end(session.runError(failure ?? (await explainFailure(session, classifyRunError(error)))));
    return;
  }
  end(failure ? session.runError(failure) : session.runFinished({ type: 'success' }));
}

/**
 * Error path: RUN_ERROR, then — when the failure abandons the task and no interrupt is pending —
 * CancelTask and a terminal execution; in every case the lease is released unless it was lost.
 */
export async function abandonRun(session: RunSession, reported: RunFailure): Promise<void> {
  const failure = await explainFailure(session, reported);
  session.emit(session.runError(failure));
  if (failure.leaseLost) {
    // The thread belongs to someone else now: no write; only a cancelled execution's task is cancelled.
    if (failure.abandonTask && session.taskToCancel) await cancelQuietly(session, session.taskToCancel);
    return;
  }
  await releaseAfterFailure(session, failure.abandonTask, failure.forceCancel);
}

/**
 * A cancel that landed on another instance shows here only as a broken or ended stream; the
 * thread document tells it apart, and the run then ends with CANCELLED (docs/protocol.md §6.7).
 */
async function explainFailure(session: RunSession, failure: RunFailure): Promise<RunFailure> {
  if (failure.leaseLost || session.startedCancelled || failure.code === 'CANCELLED' || failure.code === 'STATE_PERSISTENCE_FAILED') return failure;
  const current = await session.thread.refresh().catch(() => undefined);
  if (current && session.thread.wasCancelled(current)) return new RunFailure('CANCELLED', 'cancelled', true, { cause: failure, leaseLost: true });
  return failure;
}

/** CancelTask on a clean-up path: bounded in time, failures only logged (docs/protocol.md §7.11). */
export async function cancelQuietly(session: RunSession, taskId: string): Promise<void> {
  await session.kernel
    .cancelTask(taskId, { signal: AbortSignal.timeout(CLEANUP_CALL_MS) })
    .catch((error: unknown) => session.deps.logger.warn('CancelTask failed', { error: errorFields(error) }));
}

const CLEANUP_CALL_MS = 5_000;

/** Cancels the task exactly when no interrupt is pending in the stored document (docs/protocol.md §6.8). */
export async function releaseAfterFailure(session: RunSession, cancelTask: boolean, force = false): Promise<'cancelled' | 'kept' | 'lost'> {
  const { logger } = session.deps;
  let pending = session.thread.document.execution.pending.length > 0;
  let owned = true;
  try {
    const current = await session.thread.refresh();
    pending = current.execution.pending.length > 0;
    // Another run took the thread over: its task is its business now.
    owned = current.activeRun?.leaseId === session.thread.leaseId;
  } catch (error) {
    logger.warn('could not re-read the thread before releasing it', { error: errorFields(error) });
  }
  if (!owned) return 'lost';
  // A task the kernel started but the run never adopted (the stream failed on its first event) is
  // cancelled too: it would otherwise run on with no one reading it (docs/protocol.md §2.4).
  const taskId = session.taskToCancel;
  const cancel = cancelTask && (force || !pending) && taskId !== undefined;
  if (cancel && taskId) await cancelQuietly(session, taskId);
  try {
    const update = cancel
      ? cancelCurrentExecution
      : (document: ThreadDocument) => endRun(document, { durable: session.translator.durableState(), terminal: cancelTask && !pending, clearTask: false });
    await session.thread.update(update);
  } catch (error) {
    logger.warn('could not release the thread after a failed run', { error: errorFields(error) });
  }
  return cancel ? 'cancelled' : 'kept';
}
