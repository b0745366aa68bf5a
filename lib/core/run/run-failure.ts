/**
 * How a run fails once the stream is open (docs/protocol.md §2.4):
 * every failure becomes one RUN_ERROR with a code and a message key, plus what must happen to
 * the A2A task and the execution.
 */
import type { ErrorCode } from '../errors.js';
import { AdapterError } from '../errors.js';
import type { MessageKey } from '../i18n/catalogue.js';
import { KernelRpcError, StoreError } from '../ports.js';
import type { KernelReason } from './kernel-reason.js';
import { LeaseLostError } from './run-thread.js';

export class RunFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly messageKey: MessageKey,
    /** Cancel the A2A task (unless an interrupt is pending) and end the execution. */
    readonly abandonTask: boolean,
    options?: { cause?: unknown; leaseLost?: boolean; forceCancel?: boolean; kernelReason?: KernelReason },
  ) {
    super(`${code}: ${messageKey}`, options);
    this.name = 'RunFailure';
    this.leaseLost = options?.leaseLost ?? false;
    this.forceCancel = options?.forceCancel ?? false;
    this.kernelReason = options?.kernelReason;
  }

  /** Why the kernel failed the task, in its own words (bounded, secrets cut out): part of the RUN_ERROR's message (docs/protocol.md §2.4). */
  readonly kernelReason: KernelReason | undefined;

  /** The run no longer holds the thread, so it must not write to it again (docs/protocol.md §6.6). */
  readonly leaseLost: boolean;
  /**
   * Cancel the task even though an interrupt is still pending in the document: A2A accepted an
   * answer the adapter could not record, and a retry must never deliver it twice.
   */
  readonly forceCancel: boolean;
}

/**
 * A write failed after A2A had already moved on — it accepted an answer the adapter could not
 * record, or raised an interrupt the adapter could not commit — so the stored document keeps an
 * interrupt pending that no longer describes the task. STATE_PERSISTENCE_FAILED, and the task is
 * cancelled even though that interrupt is pending (forceCancel): a retry must never deliver an
 * answer twice nor announce an interrupt that was never durable (docs/protocol.md §6.9;
 * docs/architecture.md §5). The one way both places (resume-delivery.ts, run-ending.ts) say it.
 */
export function persistenceFailureKeepingInterrupt(cause: StoreError): RunFailure {
  return new RunFailure('STATE_PERSISTENCE_FAILED', 'statePersistenceFailed', true, { cause, forceCancel: true });
}

export function protocolViolation(detail: string): RunFailure {
  return new RunFailure('A2A_PROTOCOL_ERROR', 'a2aProtocolError', true, { cause: new Error(detail) });
}

/** Maps anything thrown while a run streams to its RUN_ERROR (docs/protocol.md §2.4). */
export function classifyRunError(error: unknown): RunFailure {
  if (error instanceof RunFailure) return error;
  if (error instanceof LeaseLostError) {
    // Another run or a cancel owns the thread now: end without touching the task (docs/protocol.md §6.6).
    const options = { cause: error, leaseLost: true };
    // A cancel that landed on another instance already ended the execution; cancelling the task
    // again from here is idempotent and covers a CancelTask that instance could not deliver.
    return error.cancelled ? new RunFailure('CANCELLED', 'cancelled', true, options) : new RunFailure('EXECUTION_LOST', 'executionLostLease', false, options);
  }
  if (error instanceof StoreError) return new RunFailure('STATE_PERSISTENCE_FAILED', 'statePersistenceFailed', true, { cause: error });
  if (error instanceof AdapterError) return new RunFailure(error.code, error.messageKey, false, { cause: error });
  if (error instanceof KernelRpcError && isBackupNotReady(error.data)) {
    return new RunFailure('SESSION_BACKUP_NOT_READY', 'sessionBackupNotReady', false, { cause: error });
  }
  return new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', true, { cause: error });
}

export function isBackupNotReady(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const record = data as Record<string, unknown>;
  return record['code'] === 'SESSION_BACKUP_NOT_READY' && record['retryable'] === true;
}
