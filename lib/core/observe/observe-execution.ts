/**
 * One observation, from RUN_STARTED to its single terminal event (docs/protocol.md §6.14): the
 * session event, the task followed until it stops, then RUN_FINISHED — `interrupt` with the
 * thread's durable pending interrupts, else `success` — or exactly one RUN_ERROR, every span
 * closed first. Read-only: it never writes the thread, takes no lease and never cancels the task;
 * when its caller leaves only its own kernel calls are aborted.
 */
import type { RunFinishedOutcome } from '@ag-ui/core';
import type { Language } from '../i18n/catalogue.js';
import { toInterrupt } from '../interrupts/interrupt-object.js';
import { kernelReason } from '../run/kernel-reason.js';
import { classifyRunError, RunFailure } from '../run/run-failure.js';
import type { AguiEvent } from '../translate/events.js';
import { durableInterrupts } from './durable-interrupts.js';
import { followTask } from './follow-task.js';
import type { Observation } from './observable.js';
import { type ObservedStop, Observer, type ObserverDeps } from './observer.js';

export async function observeExecution(
  deps: ObserverDeps,
  input: { observation: Observation; language: Language; signal: AbortSignal },
  emit: (event: AguiEvent) => void,
): Promise<void> {
  const observer = new Observer(deps, input.observation, input.language, emit);
  const { signal } = input;
  emit(observer.runStarted());
  emit(observer.sessionEvent());
  let ending: Ending;
  try {
    const stop = await followTask(observer, signal);
    ending = await endingOf(observer, stop, signal);
  } catch (error) {
    // Aborted: a caller that left reads nothing more; one cut off by a shutdown is still reading
    // and is told to subscribe again.
    ending = signal.aborted ? { failure: new RunFailure('A2A_UNAVAILABLE', 'observationEnded', false, { cause: error }), aborted: true } : { failure: classifyRunError(error) };
  }
  observer.emitAll(observer.translator.closeSpans());
  emit('failure' in ending ? observer.runError(ending.failure, ending.aborted) : observer.runFinished(ending.outcome));
}

type Ending = { failure: RunFailure; aborted?: boolean } | { outcome: RunFinishedOutcome };

/**
 * How the observed task ended: failed, rejected or auth-required → A2A_EXECUTION_FAILED; anything
 * else — input-required, completed, a required input, and canceled (a cancel is the owner's or the
 * kernel's business, not an observation failure) — ends RUN_FINISHED, announcing the thread's
 * durable pending interrupts when there are any (never for a canceled task).
 */
async function endingOf(observer: Observer, stop: ObservedStop, signal: AbortSignal): Promise<Ending> {
  if (stop.state === 'failed' || stop.state === 'rejected' || stop.state === 'auth-required') {
    // An observer holds none of the owner's secrets: the reason's credential-looking tokens are cut out.
    return { failure: new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', false, { kernelReason: kernelReason(observer.translator.failure, []) }) };
  }
  const pending = stop.state === 'canceled' ? [] : await durableInterrupts(observer, stop.inputs, signal);
  return { outcome: pending.length > 0 ? { type: 'interrupt', interrupts: pending.map(toInterrupt) } : { type: 'success' } };
}
