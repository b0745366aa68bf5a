/**
 * The interrupts an observer may announce: only durable ones (docs/protocol.md §6.9, §6.14). The
 * observer often sees a new input at the same moment as the run that owns the thread, which
 * commits it before announcing it; the observer re-reads the thread until the owner's commit is
 * there, and stops waiting as soon as no run holds an unexpired lease (nobody is going to commit
 * it). It then announces exactly what the thread has pending — the list the owner announces.
 */
import { errorFields } from '../error-fields.js';
import type { RequiredInput } from '../interrupts/inputs.js';
import { readThread } from '../thread/compare-and-swap.js';
import type { PendingInterrupt, ThreadDocument } from '../thread/document.js';
import { isApplied } from '../thread/interrupt-transitions.js';
import type { Observer } from './observer.js';

/** First pause between re-reads; it doubles up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 25;
const MAX_PAUSE_MS = 500;
/** A bound of its own, should an owner keep renewing a lease without ever committing. */
const MAX_READS = 120;

export async function durableInterrupts(observer: Observer, seen: readonly RequiredInput[], signal: AbortSignal): Promise<PendingInterrupt[]> {
  let document = observer.observation.document;
  let pause = FIRST_PAUSE_MS;
  for (let read = 1; read <= MAX_READS; read += 1) {
    const current = await reread(observer);
    // A failed read keeps the last document read: what it lists was durable.
    if (!current) break;
    document = current;
    if (!awaitingOwner(observer, document, seen)) break;
    await sleep(pause, signal);
    pause = Math.min(pause * 2, MAX_PAUSE_MS);
  }
  return document.execution.executionId === observer.executionId ? document.execution.pending : [];
}

/** Some seen input is neither pending nor answered yet, and a live run may still commit it. */
function awaitingOwner(observer: Observer, document: ThreadDocument, seen: readonly RequiredInput[]): boolean {
  if (document.execution.executionId !== observer.executionId) return false;
  const pending = new Set(document.execution.pending.map((item) => item.id));
  const missing = seen.some((input) => !pending.has(input.id) && !isApplied(document, input.id));
  const owner = document.activeRun;
  return missing && owner !== null && owner.expiresAt > observer.deps.clock();
}

async function reread(observer: Observer): Promise<ThreadDocument | undefined> {
  try {
    return (await readThread(observer.deps.store, observer.observation.request.threadId)).document;
  } catch (error) {
    observer.deps.logger.warn('could not re-read the observed thread', { error: errorFields(error) });
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
