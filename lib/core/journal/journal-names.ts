/**
 * Names of journal batches and due entries, shared by every driver (docs/state-store.md "The event
 * journal"): zero-padded so that a listing's lexicographic order is the order readers need —
 * batches by (epoch, first seq), due entries by time.
 */
import type { BatchKey, DueEntry } from '../ports.js';
import { isNamespace } from '../thread/thread-address.js';
import type { JournalBatch } from './batch.js';

const BATCH_NAME = /^(\d{9})-(\d{9})\.json$/;
const DUE_NAME = /^(\d{13})~(detached|expire)~([0-9A-Za-z-]{1,64})\.json$/;

export function batchKeyOf(batch: JournalBatch): BatchKey {
  return { epoch: batch.epoch, firstSeq: batch.entries[0]?.seq ?? batch.fenceSeq ?? 0 };
}

export function batchName(key: BatchKey): string {
  return `${String(key.epoch).padStart(9, '0')}-${String(key.firstSeq).padStart(9, '0')}.json`;
}

export function parseBatchName(name: string): BatchKey | undefined {
  const match = BATCH_NAME.exec(name);
  return match ? { epoch: Number(match[1]), firstSeq: Number(match[2]) } : undefined;
}

export function batchKeyAfter(key: BatchKey, after: BatchKey | undefined): boolean {
  return after === undefined || key.epoch > after.epoch || (key.epoch === after.epoch && key.firstSeq > after.firstSeq);
}

/** Execution ids are the adapter's own UUIDs; anything else never reaches a name. */
export function safeExecutionId(executionId: string): boolean {
  return /^[0-9A-Za-z-]{1,64}$/.test(executionId);
}

export function dueName(entry: Pick<DueEntry, 'kind' | 'executionId' | 'dueAt'>): string {
  return `${String(Math.max(0, Math.trunc(entry.dueAt))).padStart(13, '0')}~${entry.kind}~${entry.executionId}.json`;
}

export function parseDueName(name: string): Pick<DueEntry, 'kind' | 'executionId' | 'dueAt'> | undefined {
  const match = DUE_NAME.exec(name);
  return match ? { dueAt: Number(match[1]), kind: match[2] as DueEntry['kind'], executionId: match[3] as string } : undefined;
}

/**
 * The thread a due entry's body names (it is the entry as JSON): its id, and the person's namespace
 * it lives in when it is not the shared one (docs/protocol.md §6.11); undefined when it names none.
 */
export function dueThreadOf(body: string): Pick<DueEntry, 'threadId' | 'namespace'> | undefined {
  try {
    const value = JSON.parse(body) as { threadId?: unknown; namespace?: unknown };
    if (typeof value.threadId !== 'string') return undefined;
    if (value.namespace === undefined) return { threadId: value.threadId };
    return isNamespace(value.namespace) ? { threadId: value.threadId, namespace: value.namespace } : undefined;
  } catch {
    return undefined;
  }
}
