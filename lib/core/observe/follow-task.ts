/**
 * Reading the observed task until it stops (docs/protocol.md §6.14, §5.6): GetTask; unless
 * that snapshot stopped, SubscribeToTask until an item stops; if the subscription breaks or ends
 * first, GetTask once more — and if that snapshot has not stopped either, A2A_UNAVAILABLE. Only
 * reads: no SendMessage, no CancelTask, no session restore, no pipeline state.
 */
import { unwrapItem, unwrapTask } from '../a2a/inbound.js';
import { errorFields } from '../error-fields.js';
import { KernelRpcError } from '../ports.js';
import { protocolViolation, RunFailure } from '../run/run-failure.js';
import type { ObservedStop, Observer } from './observer.js';

/** A2A's JSON-RPC code for an unknown task. */
const TASK_NOT_FOUND = -32001;

export async function followTask(observer: Observer, signal: AbortSignal): Promise<ObservedStop> {
  const first = await snapshot(observer, signal);
  if (first) return first;
  try {
    for await (const raw of observer.deps.kernel.subscribeToTask(observer.taskId, { signal })) {
      const stop = observer.absorb(unwrapItem(raw));
      if (stop) return stop;
    }
    observer.deps.logger.info('the task subscription ended before the task stopped');
  } catch (error) {
    // An identity violation is the kernel's fault, not a broken subscription; the caller leaving is not either.
    if (signal.aborted || error instanceof RunFailure) throw error;
    observer.deps.logger.info('the task subscription broke', { error: errorFields(error) });
  }
  const last = await snapshot(observer, signal);
  if (last) return last;
  throw new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', false);
}

/** `GetTask {historyLength: 100}` of the stored task, mapped; undefined while the task works on. */
async function snapshot(observer: Observer, signal: AbortSignal): Promise<ObservedStop | undefined> {
  const task = await observer.deps.kernel.getTask(observer.taskId, 100, { signal }).catch((error: unknown) => {
    if (error instanceof KernelRpcError && error.rpcCode === TASK_NOT_FOUND) throw new RunFailure('EXECUTION_LOST', 'observedTaskLost', false, { cause: error });
    throw error;
  });
  const item = unwrapTask(task);
  if (item.taskId !== observer.taskId) throw protocolViolation(`GetTask answered task ${String(item.taskId)}`);
  return observer.absorb(item);
}
