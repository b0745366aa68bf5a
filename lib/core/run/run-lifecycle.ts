/**
 * One admitted run, from RUN_STARTED to its single terminal event (docs/protocol.md §4.3, §4.11). Runs to completion
 * even when the caller disconnects, so the disconnect policy (cancel the A2A task exactly when no
 * interrupt is pending) always executes.
 */
import type { Language } from '../i18n/catalogue.js';
import type { RunRequest } from '../protocol/run-request.js';
import { LeaseKeeper } from './lease-keeper.js';
import { streamNewTurn } from './new-turn.js';
import { streamResume } from './resume.js';
import { abandonRun, cancelQuietly, releaseAfterFailure } from './run-ending.js';
import { classifyRunError, RunFailure } from './run-failure.js';
import { type EventSink, type RunDeps, RunSession } from './run-session.js';
import type { RunThread } from './run-thread.js';

export interface RunInput {
  request: RunRequest;
  language: Language;
  thread: RunThread;
  orphanTaskId: string | undefined;
  /** Aborted when the caller disconnects. */
  signal: AbortSignal;
}

export async function runAdmitted(deps: RunDeps, input: RunInput, sink: EventSink): Promise<void> {
  const session = new RunSession(deps, input.request, input.language, input.thread, sink);
  const { emit } = session;
  emit(session.runStarted());
  // Steps a previous run of this execution left active are reopened (docs/protocol.md §8.4).
  session.emitAll(session.translator.reopenSteps());
  // The run's signal: aborted when the caller's is, or when the lease is lost. One controller the
  // caller's abort is forwarded to (the listener removed when the run ends), not AbortSignal.any:
  // an idle run holds less (docs/architecture.md §2).
  const aborting = new AbortController();
  const forwardAbort = (): void => aborting.abort(input.signal.reason);
  if (input.signal.aborted) forwardAbort();
  else input.signal.addEventListener('abort', forwardAbort, { once: true });
  const keeper = new LeaseKeeper(session, (lost) => aborting.abort(lost));
  const { signal } = aborting;
  try {
    if (input.orphanTaskId) {
      // The previous holder died mid-run; its task has no one left to read it (docs/protocol.md §6.6).
      await cancelQuietly(session, input.orphanTaskId);
    }
    if (input.request.resume !== undefined) await streamResume(session, input.request.resume, signal);
    else await streamNewTurn(session, signal);
  } catch (error) {
    if (input.signal.aborted && !keeper.lost) {
      // The caller left (or the instance is shutting down): the disconnect policy decides, then a
      // terminal event for whoever may still be reading — a client cut off by a shutdown is.
      const outcome = await releaseAfterFailure(session, true);
      const options = { cause: error };
      emit(
        session.runError(outcome === 'cancelled' ? new RunFailure('CANCELLED', 'cancelled', false, options) : new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', false, options)),
      );
      return;
    }
    await abandonRun(session, classifyRunError(keeper.lost ?? error));
  } finally {
    keeper.stop();
    input.signal.removeEventListener('abort', forwardAbort);
  }
}
