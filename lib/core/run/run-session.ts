/**
 * Everything one run carries while it streams: its thread handle, translator, the identities it
 * has seen and the `emit` that writes AG-UI events to the caller.
 */
import type { RunFinishedOutcome } from '@ag-ui/core';
import { errorFields } from '../error-fields.js';
import type { Language } from '../i18n/catalogue.js';
import type { A2AKernel, Logger } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import { type AguiEvent, eventFactory, type MakeEvent, sessionEvent } from '../translate/events.js';
import { type RunTranslator, translatorFor } from '../translate/run-translator.js';
import { failureMessage } from './failure-message.js';
import type { RunFailure } from './run-failure.js';
import type { RunThread } from './run-thread.js';

export interface RunDeps {
  kernel: A2AKernel;
  clock: () => number;
  /** 32 lower-case hex characters, fresh each call. */
  newId: () => string;
  logger: Logger;
  leaseTtlMs: number;
  leaseRenewMs: number;
}

export type Emit = (event: AguiEvent) => void;

/** Where a run's events go, each with the kernel text cursor it was emitted at (the event log, docs/protocol.md §4.12). */
export type EventSink = (event: AguiEvent, textCursor: number) => void;

export class RunSession {
  readonly make: MakeEvent;
  readonly translator: RunTranslator;
  taskId: string | undefined;
  /**
   * The task the kernel named on the wire for this run's message, seen before any event was
   * parsed (KernelCallOptions.onTaskId). Never adopted as the run's task — no identity check or
   * durable write stands behind it — only cancelled when the run fails first (docs/protocol.md §2.4).
   */
  wireTaskId: string | undefined;
  sessionId: string | undefined;
  /** Set once this run has seen a session id from A2A; a different one after that is a violation. */
  sessionSeenInRun = false;
  /** The execution was already cancelled when the run began (a resume of a cancelled execution). */
  readonly startedCancelled: boolean;
  private sessionEmitted = false;
  /**
   * The request's secrets are not known here (a takeover rebuilds the run's request without them):
   * a RUN_ERROR then carries the kernel's error id and a generic reason, never the kernel's text,
   * which could quote one of them (docs/design/reattach.md "Takeover").
   */
  secretsUnknown = false;
  /** The cursor of the last agent text emitted (or the run's start). */
  private emittedCursor: number;
  /** Writes one event to the run's sink at the current text cursor. */
  readonly emit: Emit;

  constructor(
    readonly deps: RunDeps,
    readonly request: RunRequest,
    readonly language: Language,
    readonly thread: RunThread,
    sink: EventSink,
    /** Told once when the run finds another producer continues it (RunThread.superseded): its log stops (EventLog.fence). */
    superseded: () => void = () => undefined,
  ) {
    this.make = eventFactory(deps.clock);
    const document = thread.document;
    this.taskId = document.execution.taskId ?? undefined;
    this.startedCancelled = thread.wasCancelled();
    this.sessionId = document.iacCodeSessionId ?? undefined;
    this.translator = translatorFor(document.execution, { make: this.make, runId: request.runId, threadId: request.threadId, newId: deps.newId });
    this.emittedCursor = this.translator.textCursor;
    let silenced = false;
    this.emit = (event) => {
      // A producer that lost its run to another announces nothing — no RUN_ERROR, nothing journaled.
      if (silenced || thread.superseded()) {
        if (!silenced) superseded();
        silenced = true;
        return;
      }
      // Agent text carries the cursor after it; every other event the cursor of the text before it —
      // a TEXT_MESSAGE_START that of the text before its first delta (docs/design/reattach.md "Cursor").
      this.emittedCursor = this.translator.cursorAfter(event) ?? this.emittedCursor;
      sink(event, this.emittedCursor);
    };
  }

  /** A takeover continues from the fork's cursor (lib/core/reattach/takeover.ts). */
  continueFromCursor(textChars: number): void {
    this.emittedCursor = textChars;
  }

  get kernel(): A2AKernel {
    return this.deps.kernel;
  }

  /** The task a failed run cancels: its own, or the one the kernel started before the run could adopt it. */
  get taskToCancel(): string | undefined {
    return this.taskId ?? this.wireTaskId;
  }

  emitAll(events: readonly AguiEvent[]): void {
    for (const event of events) this.emit(event);
  }

  /** The run's session event is already out (a takeover of a run that emitted it, docs/protocol.md §6.15). */
  sessionAlreadyEmitted(): void {
    this.sessionEmitted = true;
  }

  /** `iac-code.session.v1`, exactly once per run (docs/protocol.md §4.9). */
  emitSessionOnce(): void {
    if (this.sessionEmitted) return;
    this.sessionEmitted = true;
    const document = this.thread.document;
    this.emit(
      sessionEvent(this.make, {
        threadId: this.request.threadId,
        aguiRunId: this.request.runId,
        executionId: document.execution.executionId,
        contextId: document.contextId,
        taskId: this.taskId ?? null,
        rosInvocationId: document.execution.rosInvocationId,
        sessionId: this.sessionId ?? null,
      }),
    );
  }

  runStarted(): AguiEvent {
    return this.make('RUN_STARTED', { threadId: this.request.threadId, runId: this.request.runId, parentRunId: this.request.parentRunId });
  }

  runFinished(outcome: RunFinishedOutcome): AguiEvent {
    return this.make('RUN_FINISHED', { threadId: this.request.threadId, runId: this.request.runId, outcome, usage: this.translator.usage.list() });
  }

  /**
   * Every failure becomes RUN_ERROR here, so it is logged here: at warn, with the cause chain that
   * led to it (docs/architecture.md §5). The event carries only AG-UI 1.0's fields (code, message, usage; docs/protocol.md §4): the stream it ends already names the thread and run.
   */
  runError(failure: RunFailure): AguiEvent {
    this.deps.logger.warn('run ended', { event: 'RUN_ERROR', code: failure.code, error: errorFields(failure), kernelReason: failure.kernelReason });
    return this.make('RUN_ERROR', {
      code: failure.code,
      message: failureMessage(failure, this.language),
      usage: this.translator.usage.list(),
    });
  }
}
