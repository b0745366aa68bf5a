/**
 * How a run ends (contract §B.8): the last A2A state decides success or failure; spans are closed
 * and the final write — which releases the lease in the same compare-and-swap — happens before
 * the terminal event is emitted.
 */
import { TERMINAL_STATES } from '../a2a/inbound.js';
import { endRun } from '../thread/run-transitions.js';
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
      endRun(document, { textDigests: session.translator.textDigests(), terminal: lastState !== undefined && TERMINAL_STATES.has(lastState), clearTask: false }),
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
  if (!failure.leaseLost) await releaseAfterFailure(session, failure.abandonTask);
}

/** Cancels the task exactly when no interrupt is pending in the stored document (SPEC §4 "Disconnect"). */
export async function releaseAfterFailure(session: RunSession, cancelTask: boolean): Promise<void> {
  const { logger } = session.deps;
  let pending = session.thread.document.execution.pending.length > 0;
  try {
    pending = (await session.thread.refresh()).execution.pending.length > 0;
  } catch (error) {
    logger.warn('could not re-read the thread before releasing it', { error: String(error) });
  }
  const cancel = cancelTask && !pending && session.taskId !== undefined;
  if (cancel && session.taskId) {
    await session.kernel.cancelTask(session.taskId).catch((error: unknown) => logger.warn('CancelTask failed', { error: String(error) }));
  }
  try {
    await session.thread.update((document) => endRun(document, { textDigests: session.translator.textDigests(), terminal: cancel || (cancelTask && !pending), clearTask: cancel }));
  } catch (error) {
    logger.warn('could not release the thread after a failed run', { error: String(error) });
  }
}
