/**
 * How a run ends (contract §B.8): the last A2A state decides success or failure; spans are closed
 * and the final write — which releases the lease in the same compare-and-swap — happens before
 * the terminal event is emitted.
 */
import { TERMINAL_STATES } from '../a2a/inbound.js';
import type { RequiredInput } from '../interrupts/inputs.js';
import { toInterrupt } from '../interrupts/interrupt-object.js';
import type { ThreadDocument } from '../thread/document.js';
import { cancelCurrentExecution, commitInterrupts } from '../thread/interrupt-transitions.js';
import { endRun } from '../thread/run-transitions.js';
import type { StreamResult } from './consume-stream.js';
import { classifyRunError, RunFailure } from './run-failure.js';
import type { RunSession } from './run-session.js';

export function failureForState(lastState: string | undefined): RunFailure | undefined {
  if (lastState === 'input-required' || lastState === 'completed') return undefined;
  if (lastState === 'canceled') return new RunFailure('CANCELLED', 'cancelled', false);
  if (lastState === 'failed' || lastState === 'rejected' || lastState === 'auth-required') {
    return new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', false);
  }
  // The stream ended while the task was still working: it is abandoned (contract §B.8).
  return new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', true);
}

/** Ends the run from what its last stream showed: an interrupt, success or failure. */
export async function finishRun(session: RunSession, result: StreamResult): Promise<void> {
  if (result.newInputs.length > 0) await finishWithInterrupt(session, result.newInputs);
  else await finishFromState(session, result.lastState);
}

/**
 * Commit before announce (SPEC §4): the interrupts are durable — and the lease released in the
 * same write — before RUN_FINISHED reveals them. A failed commit cancels the task and shows
 * nothing (RUN_ERROR STATE_PERSISTENCE_FAILED via the caller's failure path).
 */
export async function finishWithInterrupt(session: RunSession, inputs: readonly RequiredInput[]): Promise<void> {
  session.translator.rememberText();
  const document = await session.thread.update((current) => commitInterrupts(current, inputs, session.translator.durableState()));
  session.emitSessionOnce();
  session.emitAll(session.translator.closeSpans());
  session.emit(session.runFinished({ type: 'interrupt', interrupts: document.execution.pending.map(toInterrupt) }));
}

/** Normal path: session event, closed spans, final write, then RUN_FINISHED or RUN_ERROR. */
export async function finishFromState(session: RunSession, lastState: string | undefined): Promise<void> {
  const failure = failureForState(lastState);
  session.emitSessionOnce();
  session.emitAll(session.translator.closeSpans());
  if (failure?.abandonTask) {
    await abandonRun(session, failure);
    return;
  }
  try {
    await session.thread.update((document) =>
      endRun(document, { durable: session.translator.durableState(), terminal: lastState !== undefined && TERMINAL_STATES.has(lastState), clearTask: false }),
    );
  } catch (error) {
    session.emit(session.runError(failure ?? classifyRunError(error)));
    return;
  }
  session.emit(failure ? session.runError(failure) : session.runFinished({ type: 'success' }));
}

/**
 * Error path: RUN_ERROR, then — when the failure abandons the task and no interrupt is pending —
 * CancelTask and a terminal execution; in every case the lease is released unless it was lost.
 */
export async function abandonRun(session: RunSession, failure: RunFailure): Promise<void> {
  session.emit(session.runError(failure));
  if (failure.leaseLost) {
    // The thread belongs to someone else now: no write; only a cancelled execution's task is cancelled.
    if (failure.abandonTask && session.taskId) await session.kernel.cancelTask(session.taskId).catch(() => undefined);
    return;
  }
  await releaseAfterFailure(session, failure.abandonTask, failure.forceCancel);
}

/** Cancels the task exactly when no interrupt is pending in the stored document (SPEC §4 "Disconnect"). */
export async function releaseAfterFailure(session: RunSession, cancelTask: boolean, force = false): Promise<void> {
  const { logger } = session.deps;
  let pending = session.thread.document.execution.pending.length > 0;
  try {
    pending = (await session.thread.refresh()).execution.pending.length > 0;
  } catch (error) {
    logger.warn('could not re-read the thread before releasing it', { error: String(error) });
  }
  const cancel = cancelTask && (force || !pending) && session.taskId !== undefined;
  if (cancel && session.taskId) {
    await session.kernel.cancelTask(session.taskId).catch((error: unknown) => logger.warn('CancelTask failed', { error: String(error) }));
  }
  try {
    const update = cancel ? cancelCurrentExecution : (document: ThreadDocument) => endRun(document, { durable: session.translator.durableState(), terminal: cancelTask && !pending, clearTask: false });
    await session.thread.update(update);
  } catch (error) {
    logger.warn('could not release the thread after a failed run', { error: String(error) });
  }
}
