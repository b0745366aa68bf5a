/**
 * A guidance run (docs/protocol.md §6.13): admitted without a lease (admit-guidance.ts), it sends the
 * latest user message as one SendStreamingMessage on the live task and reads the whole stream only
 * to validate it. Success is exactly RUN_STARTED, RUN_FINISHED success — no session event, no text,
 * no usage, no reopened steps: the owning run shows the guidance's effect on its own stream.
 * Errors (docs/protocol.md §6.13): a JSON-RPC error is SESSION_BACKUP_NOT_READY when its data says so,
 * else A2A_UNAVAILABLE; another task or context is A2A_PROTOCOL_ERROR; failed, rejected or
 * auth-required is A2A_EXECUTION_FAILED; canceled is CANCELLED; a transport failure is
 * A2A_UNAVAILABLE. A guidance run never writes after admission, never cancels the task — not on an
 * error, not when its caller leaves — and never ends the execution: the task belongs to the owning
 * run.
 */
import { unwrapItem } from '../a2a/inbound.js';
import { iacCodeMetadata, sendParams } from '../a2a/outbound.js';
import { errorFields } from '../error-fields.js';
import { type Language, translate } from '../i18n/catalogue.js';
import { type A2AKernel, KernelRpcError, type Logger } from '../ports.js';
import type { RunRequest } from '../protocol/run-request.js';
import type { GuidanceTarget } from '../thread/guidance-admission.js';
import { eventFactory } from '../translate/events.js';
import { isBackupNotReady, protocolViolation, RunFailure } from './run-failure.js';
import type { Emit } from './run-session.js';

export interface GuidanceDeps {
  kernel: A2AKernel;
  clock: () => number;
  logger: Logger;
}

export interface GuidanceInput {
  request: RunRequest;
  language: Language;
  target: GuidanceTarget;
  /** Aborted when the caller disconnects: the kernel call stops, the task is left alone. */
  signal: AbortSignal;
}

const FAILED_STATES = new Set(['failed', 'rejected', 'auth-required']);

/** Sends the guidance and reads its stream to the end; throws what the stream reveals. */
async function deliverGuidance(kernel: A2AKernel, input: GuidanceInput): Promise<void> {
  const { request, target } = input;
  const message = request.userMessage;
  if (!message) throw new RunFailure('INVALID_INPUT', 'userMessageRequired', false);
  const params = sendParams({
    messageId: message.id,
    contextId: target.contextId,
    taskId: target.taskId,
    parts: message.parts,
    iacCode: iacCodeMetadata(request.iacCode, request.cwd, input.language),
  });
  for await (const raw of kernel.sendStreamingMessage(params, { signal: input.signal })) {
    const item = unwrapItem(raw);
    if (item.taskId && item.taskId !== target.taskId) throw protocolViolation(`guidance answered for task ${item.taskId}`);
    if (item.contextId && item.contextId !== target.contextId) throw protocolViolation(`guidance answered for context ${item.contextId}`);
    if (item.state === 'canceled') throw new RunFailure('CANCELLED', 'cancelled', false);
    if (item.state && FAILED_STATES.has(item.state)) throw new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', false);
    // Anything else — text, working, input-required, new inputs — belongs to the owning run.
  }
}

function guidanceFailure(error: unknown, signal: AbortSignal): RunFailure {
  if (signal.aborted) return new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', false, { cause: error });
  if (error instanceof RunFailure) return error;
  if (error instanceof KernelRpcError) {
    return isBackupNotReady(error.data)
      ? new RunFailure('SESSION_BACKUP_NOT_READY', 'sessionBackupNotReady', false, { cause: error })
      : new RunFailure('A2A_UNAVAILABLE', 'a2aRejectedResponse', false, { cause: error });
  }
  return new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', false, { cause: error });
}

export async function runGuidance(deps: GuidanceDeps, input: GuidanceInput, emit: Emit): Promise<void> {
  const make = eventFactory(deps.clock);
  const { threadId, runId, parentRunId } = input.request;
  emit(make('RUN_STARTED', { threadId, runId, parentRunId }));
  try {
    await deliverGuidance(deps.kernel, input);
  } catch (error) {
    const failure = guidanceFailure(error, input.signal);
    // A caller who left (or an instance stopping) is not a failure worth a warning (docs/architecture.md §5).
    const log = input.signal.aborted ? deps.logger.info : deps.logger.warn;
    log.call(deps.logger, 'run ended', { event: 'RUN_ERROR', code: failure.code, guidance: true, aborted: input.signal.aborted || undefined, error: errorFields(failure) });
    emit(make('RUN_ERROR', { code: failure.code, message: translate(failure.messageKey, input.language) }));
    return;
  }
  emit(make('RUN_FINISHED', { threadId, runId, outcome: { type: 'success' } }));
}
