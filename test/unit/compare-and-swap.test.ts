/**
 * The one read-decide-write loop (lib/core/thread/compare-and-swap.ts; docs/architecture.md §3)
 * on the in-memory store, which keeps the drivers' compare-and-swap contract: a conflict is
 * re-read and re-decided up to one retry limit, after which the thread counts as unavailable;
 * unavailable and corrupt stores are never retried; the caller's own errors pass untouched; and
 * the run's thread handle keeps its lease check across a retry.
 */
import { describe, expect, it } from 'vitest';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError } from '../../lib/core/errors.js';
import { type StoredDocument, StoreError, type ThreadStore } from '../../lib/core/ports.js';
import { parseRunRequest } from '../../lib/core/protocol/run-request.js';
import { admit } from '../../lib/core/run/admit.js';
import { LeaseLostError, RunThread } from '../../lib/core/run/run-thread.js';
import { admitRun } from '../../lib/core/thread/admission.js';
import { compareAndSwap, MAX_CAS_ATTEMPTS } from '../../lib/core/thread/compare-and-swap.js';
import type { ThreadDocument } from '../../lib/core/thread/document.js';
import { renewLease } from '../../lib/core/thread/run-transitions.js';
import { FaultyStore } from '../support/faulty-store.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { MemoryThreadStore } from '../support/memory-store.js';

const NOW = 1_700_000_000_000;

/** A valid document of a thread whose run holds lease `leaseId`. */
function admitted(threadId: string, leaseId = 'lease-1'): ThreadDocument {
  const request = parseRunRequest(runBody({ threadId }), { allowedRoots: [], caller: SERVICE });
  return admitRun(undefined, request, { now: NOW, leaseTtlMs: 30_000, newExecutionId: () => 'execution-1', leaseId, graceMs: 0 }).document;
}

/** Another instance writes before every save of ours: the fault a real store shows only under a race. */
class ContendedStore implements ThreadStore {
  readonly kind = 'memory' as const;
  saves = 0;
  constructor(readonly inner: MemoryThreadStore) {}

  load(threadId: string): Promise<StoredDocument | undefined> {
    return this.inner.load(threadId);
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    this.saves += 1;
    const current = await this.inner.load(threadId);
    if (current) await this.inner.save(threadId, current.document, current.revision);
    return this.inner.save(threadId, document, expected);
  }
}

/** A driver breaking the family rule: its failures are plain errors. */
class ThrowingStore extends MemoryThreadStore {
  saves = 0;
  override async save(): Promise<number> {
    this.saves += 1;
    throw new TypeError('socket closed');
  }
}

describe('compareAndSwap', () => {
  it('creates a thread from an empty read and answers the written state', async () => {
    const store = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    const document = admitted(threadId);

    const outcome = await compareAndSwap(store, threadId, (state) => {
      expect(state).toEqual({ document: undefined, revision: 0 });
      return { write: document, value: 'created' };
    });

    expect(outcome).toEqual({ value: 'created', written: true, state: { document, revision: 1 } });
    expect(await store.load(threadId)).toEqual({ document, revision: 1 });
  });

  it('re-reads and decides again when another writer got there first', async () => {
    const store = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    const first = admitted(threadId);
    await store.save(threadId, first, 0);
    const theirs = renewLease(first, NOW + 1);
    await store.save(threadId, theirs, 1);
    const seen: number[] = [];

    // Start from the stale revision 1, as a run with a cached document would.
    const outcome = await compareAndSwap(
      store,
      threadId,
      (state) => {
        seen.push(state.revision);
        return { write: renewLease(state.document as ThreadDocument, NOW + 2), value: state.revision };
      },
      { start: { document: first, revision: 1 } },
    );

    expect(seen).toEqual([1, 2]);
    expect(outcome).toMatchObject({ value: 2, written: true, state: { revision: 3 } });
    expect((await store.load(threadId))?.document).toMatchObject({ activeRun: { expiresAt: NOW + 2 } });
  });

  it(`gives up after ${MAX_CAS_ATTEMPTS} conflicting writes with an unavailable StoreError caused by the last conflict`, async () => {
    const inner = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    await inner.save(threadId, admitted(threadId), 0);
    const store = new ContendedStore(inner);

    const error = await compareAndSwap(store, threadId, (state) => ({ write: renewLease(state.document as ThreadDocument, NOW + 5), value: undefined })).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ kind: 'unavailable', cause: { kind: 'conflict' } });
    expect(store.saves).toBe(MAX_CAS_ATTEMPTS);
  });

  it('does not retry an unavailable store', async () => {
    const store = new FaultyStore(new MemoryThreadStore());
    const threadId = uniqueId('thread');
    store.failSaveAfter(1);
    let decisions = 0;

    const error = await compareAndSwap(store, threadId, () => {
      decisions += 1;
      return { write: admitted(threadId), value: undefined };
    }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ kind: 'unavailable', message: 'injected save failure' });
    expect([store.loads, store.saves, decisions]).toEqual([1, 1, 1]);
  });

  it('does not retry a corrupt document, and never decides on it', async () => {
    const store = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    await store.save(threadId, { schemaVersion: 'not a thread' }, 0);
    let decisions = 0;

    const error = await compareAndSwap(store, threadId, () => {
      decisions += 1;
      return { value: undefined };
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ kind: 'corrupt' });
    expect(decisions).toBe(0);
  });

  it('keeps a failure from outside the family in the family: unavailable, with the driver’s error as cause, not retried', async () => {
    const store = new ThrowingStore();
    const threadId = uniqueId('thread');

    const error = await compareAndSwap(store, threadId, () => ({ write: admitted(threadId), value: undefined })).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ kind: 'unavailable', cause: { name: 'TypeError', message: 'socket closed' } });
    expect(store.saves).toBe(1);
  });

  it('passes the caller’s own errors through untouched and writes nothing; a decision without a write writes nothing', async () => {
    const store = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    const busy = new AdapterError('THREAD_BUSY', 'threadBusy');

    await expect(
      compareAndSwap(store, threadId, () => {
        throw busy;
      }),
    ).rejects.toBe(busy);
    expect(await compareAndSwap(store, threadId, (state) => ({ value: state.revision }))).toEqual({ value: 0, written: false, state: { document: undefined, revision: 0 } });
    expect(await store.load(threadId)).toBeUndefined();
  });
});

describe('what the CAS outcomes become for its callers', () => {
  it('admission answers STATE_UNAVAILABLE when the thread keeps changing, with the store error as cause', async () => {
    const inner = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    await inner.save(threadId, admitted(threadId, 'lease-old'), 0);
    const request = parseRunRequest(runBody({ threadId }), { allowedRoots: [], caller: SERVICE });

    // The stored run's lease has long expired (NOW + 10 min), so each attempt would take the thread over.
    const error = await admit(new ContendedStore(inner), request, () => ({
      now: NOW + 600_000,
      leaseTtlMs: 30_000,
      newExecutionId: () => 'execution-2',
      leaseId: 'lease-new',
      graceMs: 0,
    })).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AdapterError);
    expect(error).toMatchObject({ code: 'STATE_UNAVAILABLE', cause: { kind: 'unavailable' } });
  });

  it('a run’s thread handle re-checks its lease after a conflict: taken over in between → LeaseLostError, nothing written', async () => {
    const store = new MemoryThreadStore();
    const threadId = uniqueId('thread');
    const mine = admitted(threadId, 'lease-mine');
    await store.save(threadId, mine, 0);
    const thread = new RunThread(store, threadId, 'lease-mine', mine.execution.executionId, mine, 1);
    // Another run took the thread over (its own lease) before this run's next write.
    await store.save(threadId, { ...mine, activeRun: { runId: 'run-other', leaseId: 'lease-other', expiresAt: NOW + 60_000 } }, 1);

    const error = await thread.update((document) => renewLease(document, NOW + 30_000)).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(LeaseLostError);
    expect(await store.load(threadId)).toMatchObject({ revision: 2, document: { activeRun: { leaseId: 'lease-other' } } });
    // The handle now holds what it read, so it knows who owns the thread.
    expect(thread.document.activeRun?.leaseId).toBe('lease-other');
  });
});
