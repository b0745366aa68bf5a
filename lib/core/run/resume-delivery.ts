/**
 * Delivering validated answers to A2A (docs/protocol.md §5.6, §5.7). An answer counts as accepted on
 * the first event of its stream (or when SendMessage returns without an error); at that moment it
 * leaves pending and is recorded as applied — one write, before anything from that stream is
 * emitted — so a repeated answer never reaches A2A twice. A stream that breaks after the kernel
 * answered on the task but before its first event could be read (cut mid-event, or an event the
 * SDK refuses) still carried the kernel's acceptance: the answer is recorded as applied and the run
 * follows the task, so the thread is never left waiting for an answer the kernel already took.
 */
import { TERMINAL_STATES, unwrapTask } from '../a2a/inbound.js';
import { iacCodeMetadata, sendParams } from '../a2a/outbound.js';
import type { WirePart } from '../a2a/wire-types.js';
import { errorFields } from '../error-fields.js';
import type { MessageKey } from '../i18n/catalogue.js';
import { permissionAnswerPart } from '../interrupts/answers.js';
import { isPermission } from '../interrupts/interrupt-object.js';
import { promptAnswer } from '../interrupts/prompt-answer.js';
import type { Answer } from '../interrupts/resume-plan.js';
import { KernelRpcError, KernelUnavailableError, StoreError } from '../ports.js';
import { acceptAnswers } from '../thread/interrupt-transitions.js';
import { absorbIdentities, absorbItem, consumeStream, isStopState, type StreamResult, snapshotStatusText } from './consume-stream.js';
import { recoverPipeline } from './pipeline-recovery.js';
import { finishRun } from './run-ending.js';
import { classifyRunError, isBackupNotReady, persistenceFailureKeepingInterrupt, RunFailure } from './run-failure.js';
import type { RunSession } from './run-session.js';

export async function deliverAnswers(session: RunSession, answers: Answer[], signal: AbortSignal): Promise<void> {
  const prompts = answers.filter((answer) => !isPermission(answer.pending.input));
  if (prompts.length > 0) {
    // A question or option answer goes as text; when several are answered at once the last one is
    // sent, as the peer adapter does (docs/protocol.md §5.6).
    await deliverPrompt(session, prompts.at(-1) as Answer, signal);
    return;
  }
  if (answers.every((answer) => answer.pending.sideband)) await deliverSideband(session, answers, signal);
  else await deliverStreamingPermissions(session, answers, signal);
}

/** Records accepted answers; A2A already acts on them, so a failed write must cancel the task. */
async function accept(session: RunSession, answers: Answer[]): Promise<void> {
  try {
    await session.thread.update((document) =>
      acceptAnswers(
        document,
        answers.map((answer) => ({ interruptId: answer.pending.id, digest: answer.digest })),
      ),
    );
  } catch (error) {
    throw error instanceof StoreError ? persistenceFailureKeepingInterrupt(error) : error;
  }
}

/** Before acceptance: a rejection keeps the interrupt pending (docs/protocol.md §5.7). */
function rejected(error: unknown, notAccepted: MessageKey): RunFailure {
  if (error instanceof RunFailure) return new RunFailure(error.code, error.messageKey, false, { cause: error });
  if (error instanceof KernelRpcError) {
    return isBackupNotReady(error.data)
      ? new RunFailure('SESSION_BACKUP_NOT_READY', 'sessionBackupNotReady', false, { cause: error })
      : new RunFailure('A2A_UNAVAILABLE', 'a2aRejectedResponse', false, { cause: error });
  }
  const failure = classifyRunError(error);
  return new RunFailure(failure.code, failure.code === 'A2A_UNAVAILABLE' ? notAccepted : failure.messageKey, false, { cause: error });
}

function resumeParams(session: RunSession, messageId: string, part: WirePart) {
  const { request, thread } = session;
  return sendParams({
    messageId,
    contextId: thread.document.contextId,
    taskId: session.taskId,
    parts: [part],
    iacCode: iacCodeMetadata(request.iacCode, request.cwd, session.language),
  });
}

/**
 * Streams one answer; acceptance happens on its first event. A stream the kernel answered on the
 * answer's task but that broke before an item could be read returns a result without an item
 * (`sawItem` false): the answer is accepted all the same, and the caller follows the task.
 */
async function streamAnswer(
  session: RunSession,
  answers: Answer[],
  messageId: string,
  part: WirePart,
  notAccepted: MessageKey,
  signal: AbortSignal,
  afterAccept?: () => void,
): Promise<StreamResult> {
  let accepted = false;
  const onAccepted = async (): Promise<void> => {
    // A2A took the answer, whether or not the record below succeeds.
    accepted = true;
    await accept(session, answers);
    session.emitSessionOnce();
    afterAccept?.();
  };
  // The kernel's answer named the task: it has the answer, read or not (docs/protocol.md §5.7).
  let answeredOnTask = false;
  const onTaskId = (taskId: string): void => {
    if (taskId === session.taskId) answeredOnTask = true;
  };
  try {
    const stream = session.kernel.sendStreamingMessage(resumeParams(session, messageId, part), { signal, onTaskId });
    const result = await consumeStream(session, stream, { onAccepted });
    if (result.sawItem) return result;
    // The stream ended without one whole event: taken all the same when the kernel named the task.
    if (answeredOnTask && !signal.aborted) return await takenUnread(undefined);
    throw new RunFailure('A2A_UNAVAILABLE', notAccepted, false);
  } catch (error) {
    if (accepted) throw error;
    // Cut in its first event, or an event the SDK refuses: kept pending, the answer would be
    // refused by the kernel on every retry and the thread could take no new turn.
    if (answeredOnTask && error instanceof KernelUnavailableError && !signal.aborted) return await takenUnread(error);
    throw rejected(error, notAccepted);
  }

  async function takenUnread(error: unknown): Promise<StreamResult> {
    session.deps.logger.warn('the kernel took an answer whose stream could not be read; following the task', error === undefined ? {} : { error: errorFields(error) });
    await onAccepted();
    return { lastState: undefined, sawItem: false, newInputs: [] };
  }
}

async function deliverPrompt(session: RunSession, answer: Answer, signal: AbortSignal): Promise<void> {
  const { text, toolResult } = promptAnswer(answer, { taskId: session.taskId as string, contextId: session.thread.document.contextId });
  const toolUseId = answer.pending.input['toolUseId'];
  const result = await streamAnswer(session, [answer], `agui-resume-${session.request.runId}`, { text }, 'a2aResponseNotAccepted', signal, () => {
    // The answered question's tool call gets its result, once, before the resume's own events.
    if (typeof toolUseId === 'string' && toolUseId && toolResult !== undefined) session.emitAll(session.translator.toolResult(toolUseId, toolResult));
  });
  signal.throwIfAborted();
  await finishAnswerStream(session, result, signal);
}

/**
 * How a run goes on after the stream that delivered an answer ended (docs/protocol.md §5.6): a new
 * required input or a stop state ends the run from that stream; otherwise the task still works
 * (a prompt answer's stream may end while a pipeline goes on, docs/protocol.md §5.6), so the run follows
 * the task with SubscribeToTask instead of failing. Every answer kind delivered by a streaming
 * message ends through here.
 */
export async function finishAnswerStream(session: RunSession, result: StreamResult, signal: AbortSignal): Promise<void> {
  if (result.newInputs.length > 0 || isStopState(result.lastState)) {
    await finishRun(session, result);
    return;
  }
  await finishFromSubscription(session, signal);
}

/** Permissions from the task's own input: one streaming message each (docs/protocol.md §5.6). */
async function deliverStreamingPermissions(session: RunSession, answers: Answer[], signal: AbortSignal): Promise<void> {
  let result: StreamResult | undefined;
  for (const answer of answers) {
    const part = permissionAnswerPart(answer.pending, session.taskId as string, answer.entry);
    result = await streamAnswer(session, [answer], `agui-resume-${session.request.runId}-${answer.pending.id}`, part, 'a2aPermissionNotAccepted', signal);
    // A new interrupt, a task that ended, or a stream that could not be read stops the sending:
    // what is left stays pending, and the task is followed.
    if (result.newInputs.length > 0 || (result.lastState !== undefined && TERMINAL_STATES.has(result.lastState)) || !result.sawItem) break;
  }
  signal.throwIfAborted();
  await finishAnswerStream(session, result as StreamResult, signal);
}

/** Sideband permissions: SendMessage each, then follow the task (docs/protocol.md §5.6). */
async function deliverSideband(session: RunSession, answers: Answer[], signal: AbortSignal): Promise<void> {
  for (const answer of answers) {
    const part = permissionAnswerPart(answer.pending, session.taskId as string, answer.entry);
    try {
      await session.kernel.sendMessage(resumeParams(session, `agui-resume-${answer.pending.id}`, part), { signal });
    } catch (error) {
      throw rejected(error, 'a2aPermissionNotAccepted');
    }
    await accept(session, [answer]);
  }
  session.emitSessionOnce();
  await finishFromSubscription(session, signal);
}

/** After a sideband answer, catch up on the pipeline before the run ends (docs/protocol.md §8.6). */
async function catchUp(session: RunSession, result: StreamResult, signal: AbortSignal): Promise<void> {
  await recoverPipeline(session, signal);
  await finishRun(session, result);
}

/**
 * GetTask; if the task has not stopped, SubscribeToTask; if that errors or ends early, GetTask
 * again — success only when that snapshot has stopped (docs/protocol.md §5.6; old kernels answer
 * SubscribeToTask on a parked task with an error).
 */
async function finishFromSubscription(session: RunSession, signal: AbortSignal): Promise<void> {
  const snapshot = await snapshotResult(session, signal);
  if (snapshot.newInputs.length > 0 || isStopState(snapshot.lastState)) {
    await catchUp(session, snapshot, signal);
    return;
  }
  try {
    const streamed = await consumeStream(session, session.kernel.subscribeToTask(session.taskId as string, { signal }), { attached: true });
    if (streamed.newInputs.length > 0 || isStopState(streamed.lastState)) {
      await catchUp(session, streamed, signal);
      return;
    }
  } catch (error) {
    if (signal.aborted || error instanceof RunFailure) throw error;
    if (!(error instanceof KernelRpcError)) throw error;
  }
  const final = await snapshotResult(session, signal);
  if (final.newInputs.length > 0 || isStopState(final.lastState)) {
    await catchUp(session, final, signal);
    return;
  }
  throw new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', true);
}

/**
 * A snapshot's status text is read only once the task stopped (its final, whole answer); while it
 * works the status message is just the latest streamed delta, and the subscription that follows
 * delivers the text (its own first snapshot gives the history's, followedItemText).
 */
async function snapshotResult(session: RunSession, signal: AbortSignal): Promise<StreamResult> {
  const item = unwrapTask(await session.kernel.getTask(session.taskId as string, 100, { signal }));
  await absorbIdentities(session, item);
  return { lastState: item.state, sawItem: true, newInputs: absorbItem(session, item, { statusText: snapshotStatusText(item) }) };
}
