/**
 * One admitted run, from RUN_STARTED to its single terminal event (docs/protocol.md §4.3, §4.11). Runs to completion
 * even when the caller disconnects, so the disconnect policy (cancel the A2A task exactly when no
 * interrupt is pending) always executes.
 */
import type { Language } from '../i18n/catalogue.js';
import type { EventJournal } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import { LeaseKeeper } from './lease-keeper.js';
import { streamNewTurn } from './new-turn.js';
import { Presence } from './presence.js';
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
  /** Resumable runs (docs/protocol.md §6.15); absent, or a grace of 0: the caller leaving cancels as always (§6.8). */
  resumable?: Resumable;
  /** The run found another producer continues it (RunSession): its event log stops (EventLog.fence). */
  superseded?: () => void;
}

/** What a run that may outlive its connection needs (docs/protocol.md §6.15). */
export interface Resumable {
  graceMs: number;
  journal: EventJournal | undefined;
  /** Tells `listener` how many readers the run's event log has after each change (EventLog.onReaders). */
  watchReaders(listener: (count: number) => void): void;
  /**
   * Tells `handOver` when the instance stops — before any request is aborted (graceful-shutdown.ts),
   * and also for a run whose caller left long before, whose request's signal can abort no more.
   */
  watchStopping(handOver: () => void): void;
  /** Journals everything the run placed (before it hands itself over: the next producer forks after it). */
  flush(): Promise<void>;
}

/** The run stops on this instance without ending: it is detached, for a reader to take over (docs/protocol.md §6.15). */
class HandOver extends Error {
  constructor() {
    super('the instance is stopping; the run is handed over to whoever reattaches');
    this.name = 'HandOver';
  }
}

export async function runAdmitted(deps: RunDeps, input: RunInput, sink: EventSink): Promise<void> {
  const session = new RunSession(deps, input.request, input.language, input.thread, sink, input.superseded);
  const { emit } = session;
  emit(session.runStarted());
  // Steps a previous run of this execution left active are reopened (docs/protocol.md §8.4).
  session.emitAll(session.translator.reopenSteps());
  await followRun(session, input, async (signal) => {
    if (input.orphanTaskId) {
      // The previous holder died mid-run; its task has no one left to read it (docs/protocol.md §6.6).
      await cancelQuietly(session, input.orphanTaskId);
    }
    if (input.request.resume !== undefined) await streamResume(session, input.request.resume, signal);
    else await streamNewTurn(session, signal);
  });
}

/**
 * Runs `body` — the run's kernel work — under its lease, and ends it: on failure with the run's
 * error path; when the caller left, by the disconnect rule (docs/protocol.md §6.8) — or, for a
 * resumable run, not at all: it goes on detached, and a stopping instance hands it over
 * (docs/protocol.md §6.15). Shared by a run and by the takeover of one (lib/core/reattach/takeover.ts).
 */
export async function followRun(session: RunSession, input: Pick<RunInput, 'signal' | 'resumable'>, body: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const { emit } = session;
  const resumable = input.resumable !== undefined && input.resumable.graceMs > 0 ? input.resumable : undefined;
  // The run's signal: aborted when the caller's is (a resumable run: when the instance stops, which
  // it hears before its caller's request is aborted), or when the lease is lost. One controller the
  // caller's abort is forwarded to (the listener removed when the run ends), not AbortSignal.any:
  // an idle run holds less (docs/architecture.md §2).
  const aborting = new AbortController();
  const forwardAbort = (): void => {
    if (!resumable) aborting.abort(input.signal.reason);
  };
  if (input.signal.aborted) forwardAbort();
  else input.signal.addEventListener('abort', forwardAbort, { once: true });
  const presence = resumable ? new Presence(session, resumable.graceMs, resumable.journal) : undefined;
  if (presence) resumable?.watchReaders((count) => presence.readersChanged(count));
  resumable?.watchStopping(() => aborting.abort(new HandOver()));
  const keeper = new LeaseKeeper(session, (lost) => aborting.abort(lost));
  const { signal } = aborting;
  try {
    await body(signal);
  } catch (error) {
    if (presence && signal.reason instanceof HandOver && !keeper.lost) {
      // The kernel's task goes on; the next reader, on any instance, takes the run over — from
      // everything this producer placed, journaled first (docs/design/reattach.md "Hand-over").
      await resumable?.flush();
      await presence.detachNow();
      session.deps.logger.info('run handed over: the instance is stopping');
      return;
    }
    if (input.signal.aborted && !keeper.lost && !presence) {
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
    await presence?.stop();
  }
}
