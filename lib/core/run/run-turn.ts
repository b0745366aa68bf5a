/**
 * One admitted run, from RUN_STARTED to its single terminal event (SPEC §4). Runs to completion
 * even when the caller disconnects, so the disconnect policy (cancel the A2A task exactly when
 * no interrupt is pending) always executes.
 */
import { iacCodeMetadata, sendParams } from '../a2a/outbound.js';
import type { Language } from '../i18n/catalogue.js';
import type { RunRequest } from '../protocol/run-request.js';
import { consumeStream } from './consume-stream.js';
import { LeaseKeeper } from './lease-keeper.js';
import { classifyRunError, RunFailure } from './run-failure.js';
import { abandonRun, finishFromState, releaseAfterFailure } from './run-ending.js';
import { RunSession, type Emit, type RunDeps } from './run-session.js';
import type { RunThread } from './run-thread.js';

export interface TurnInput {
  request: RunRequest;
  language: Language;
  thread: RunThread;
  orphanTaskId: string | undefined;
  /** Aborted when the caller disconnects. */
  signal: AbortSignal;
}

export async function runTurn(deps: RunDeps, input: TurnInput, emit: Emit): Promise<void> {
  const session = new RunSession(deps, input.request, input.language, input.thread, emit);
  emit(session.runStarted());
  const keeper = new LeaseKeeper(session);
  const signal = AbortSignal.any([input.signal, keeper.signal]);
  try {
    if (input.orphanTaskId) {
      // The previous holder died mid-run; its task has no one left to read it (SPEC §4 "Busy").
      await deps.kernel.cancelTask(input.orphanTaskId).catch((error: unknown) => deps.logger.warn('orphan CancelTask failed', { error: String(error) }));
    }
    await streamNewTurn(session, signal);
  } catch (error) {
    if (input.signal.aborted) {
      await releaseAfterFailure(session, true);
      return;
    }
    await abandonRun(session, keeper.lost ? classifyRunError(keeper.lost) : classifyRunError(error));
  } finally {
    keeper.stop();
  }
}

async function streamNewTurn(session: RunSession, signal: AbortSignal): Promise<void> {
  const { request, thread } = session;
  const userMessage = request.userMessage;
  if (!userMessage) throw new RunFailure('INVALID_INPUT', 'userMessageRequired', false);
  const params = sendParams({
    messageId: userMessage.id,
    contextId: thread.document.contextId,
    taskId: undefined,
    parts: userMessage.parts,
    iacCode: iacCodeMetadata(request.iacCode, request.cwd, session.language),
  });
  const result = await consumeStream(session, session.kernel.sendStreamingMessage(params, { signal }));
  signal.throwIfAborted();
  await finishFromState(session, result.lastState);
}
