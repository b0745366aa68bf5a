/**
 * One observation's read-only counterpart of RunSession (docs/protocol.md §6.14): the translator
 * seeded from the stored execution, the identity checks every item must pass, and the events that
 * open and end the observer's stream. It holds no thread handle, so it cannot write.
 */
import type { RunFinishedOutcome } from '@ag-ui/core';
import type { InboundItem } from '../a2a/inbound.js';
import { errorFields } from '../error-fields.js';
import type { Language } from '../i18n/catalogue.js';
import { type RequiredInput, requiredInputs } from '../interrupts/inputs.js';
import type { A2AKernel, Logger, ThreadStore } from '../ports.js';
import { isStopState, snapshotStatusText } from '../run/consume-stream.js';
import { failureMessage } from '../run/failure-message.js';
import { protocolViolation, type RunFailure } from '../run/run-failure.js';
import { type AguiEvent, eventFactory, type MakeEvent, sessionEvent } from '../translate/events.js';
import { type RunTranslator, translatorFor } from '../translate/run-translator.js';
import type { Observation } from './observable.js';

export interface ObserverDeps {
  kernel: A2AKernel;
  /** Read only: the observer re-reads the thread to announce durable interrupts. */
  store: ThreadStore;
  clock: () => number;
  /** 32 lower-case hex characters, fresh each call. */
  newId: () => string;
  logger: Logger;
}

/** Where the observed task stopped: a stop state, or required inputs in any state. */
export interface ObservedStop {
  state: string | undefined;
  inputs: RequiredInput[];
}

export class Observer {
  readonly make: MakeEvent;
  readonly translator: RunTranslator;

  constructor(
    readonly deps: ObserverDeps,
    readonly observation: Observation,
    readonly language: Language,
    readonly emit: (event: AguiEvent) => void,
  ) {
    this.make = eventFactory(deps.clock);
    const { request, document } = observation;
    // Seeded like the owner's run (text digests, cursor, open steps), so text already announced is
    // not repeated; durable steps are not reopened — closers of steps opened before are (docs/protocol.md §8.4).
    this.translator = translatorFor(document.execution, { make: this.make, runId: request.runId, threadId: request.threadId, newId: deps.newId });
  }

  get taskId(): string {
    return this.observation.taskId;
  }

  get executionId(): string {
    return this.observation.document.execution.executionId;
  }

  /**
   * Checks one item, emits its events and says whether the task stopped (docs/protocol.md §6.14):
   * the item carries a required input, or its state is input-required or terminal. A task item's
   * status text counts only once the task stopped (snapshotStatusText).
   */
  absorb(item: InboundItem): ObservedStop | undefined {
    this.checkIdentity(item);
    const inputs = requiredInputs(item.iac);
    for (const input of inputs) this.checkInput(input);
    this.emitAll(this.translator.apply(item, { statusText: snapshotStatusText(item) }));
    return inputs.length > 0 || isStopState(item.state) ? { state: item.state, inputs } : undefined;
  }

  emitAll(events: readonly AguiEvent[]): void {
    for (const event of events) this.emit(event);
  }

  runStarted(): AguiEvent {
    // No parentRunId: an observation is not a child of the run it observes (docs/protocol.md §6.14).
    return this.make('RUN_STARTED', { threadId: this.observation.request.threadId, runId: this.observation.request.runId });
  }

  /** `iac-code.session.v1` from the stored document (docs/protocol.md §4.9). */
  sessionEvent(): AguiEvent {
    const { request, document } = this.observation;
    return sessionEvent(this.make, {
      threadId: request.threadId,
      aguiRunId: request.runId,
      executionId: document.execution.executionId,
      contextId: document.contextId,
      taskId: this.taskId,
      rosInvocationId: document.execution.rosInvocationId,
      sessionId: document.iacCodeSessionId,
    });
  }

  runFinished(outcome: RunFinishedOutcome): AguiEvent {
    const { threadId, runId } = this.observation.request;
    return this.make('RUN_FINISHED', { threadId, runId, outcome, usage: this.translator.usage.list() });
  }

  /**
   * Logged here with its cause, at warn as every RUN_ERROR is (docs/architecture.md §5) — at info
   * when the observation was aborted: its caller left, or the instance is stopping (the cause
   * says which); neither is a failure of anything.
   */
  runError(failure: RunFailure, aborted = false): AguiEvent {
    const fields = { event: 'RUN_ERROR', code: failure.code, error: errorFields(failure), kernelReason: failure.kernelReason };
    if (aborted) this.deps.logger.info('observation aborted: its caller left or the instance is stopping', fields);
    else this.deps.logger.warn('observation ended', fields);
    return this.make('RUN_ERROR', { code: failure.code, message: failureMessage(failure, this.language), usage: this.translator.usage.list() });
  }

  /** Every item must be of the stored task and the thread's context (docs/protocol.md §7.6). */
  private checkIdentity(item: InboundItem): void {
    if (item.taskId !== undefined && item.taskId !== this.taskId) throw protocolViolation(`observed item of task ${item.taskId}`);
    const contextId = this.observation.document.contextId;
    if (item.contextId !== undefined && item.contextId !== contextId) throw protocolViolation(`observed item of context ${item.contextId}`);
  }

  private checkInput(input: RequiredInput): void {
    const requestTaskId = input.input['requestTaskId'];
    if (typeof requestTaskId === 'string' && requestTaskId !== this.taskId) throw protocolViolation(`input ${input.id} belongs to task ${requestTaskId}`);
    const contextId = input.input['contextId'];
    if (typeof contextId === 'string' && contextId !== this.observation.document.contextId) throw protocolViolation(`input ${input.id} belongs to context ${contextId}`);
  }
}
