/**
 * compareAndSwap on a store that remembers (ThreadStore.cached; docs/architecture.md §3.4): a write
 * decided on the remembered revision is saved without a load — the save proves it current or meets
 * a conflict, after which the loop loads and decides again — while a refusal or a decision to write
 * nothing is never taken from memory: it is decided again on a fresh load.
 */
import { describe, expect, it } from 'vitest';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError } from '../../lib/core/errors.js';
import type { StoredDocument } from '../../lib/core/ports.js';
import { parseRunRequest } from '../../lib/core/protocol/run-request.js';
import { admit } from '../../lib/core/run/admit.js';
import { RunThread } from '../../lib/core/run/run-thread.js';
import { admitRun } from '../../lib/core/thread/admission.js';
import { compareAndSwap } from '../../lib/core/thread/compare-and-swap.js';
import type { ThreadDocument } from '../../lib/core/thread/document.js';
import { endRun, renewLease } from '../../lib/core/thread/run-transitions.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { MemoryThreadStore } from '../support/memory-store.js';

const NOW = 1_700_000_000_000;

/** The in-memory store with a memory of its own: what `cached` answers is set by the test. */
class RememberingStore extends MemoryThreadStore {
  remembered: StoredDocument | undefined;
  loads = 0;
  saves: number[] = [];

  cached(): StoredDocument | undefined {
    return this.remembered && { document: JSON.parse(JSON.stringify(this.remembered.document)), revision: this.remembered.revision };
  }

  override async load(threadId: string): Promise<StoredDocument | undefined> {
    this.loads += 1;
    return super.load(threadId);
  }

  override async save(threadId: string, document: unknown, expected: number): Promise<number> {
    this.saves.push(expected);
    return super.save(threadId, document, expected);
  }
}

function admitted(threadId: string, leaseId: string, now = NOW): ThreadDocument {
  const request = parseRunRequest(runBody({ threadId }), { allowedRoots: [], caller: SERVICE });
  return admitRun(undefined, request, { now, leaseTtlMs: 30_000, newExecutionId: () => 'execution-1', leaseId, graceMs: 0 }).document;
}

function released(document: ThreadDocument): ThreadDocument {
  return endRun(document, { durable: { textDigests: [], pipelineSequence: 0, pipelineOpenSteps: [], textChars: 0 }, terminal: false, clearTask: false });
}

const admission = () => ({ now: NOW + 1_000, leaseTtlMs: 30_000, newExecutionId: () => 'execution-2', leaseId: 'lease-new', graceMs: 0 });

describe('compareAndSwap on remembered state', () => {
  it('saves a write decided on the remembered revision without loading when the memory is current', async () => {
    const store = new RememberingStore();
    const threadId = uniqueId('thread');
    const first = released(admitted(threadId, 'lease-1'));
    await store.save(threadId, first, 0);
    store.remembered = { document: first, revision: 1 };
    store.saves = [];
    const outcome = await compareAndSwap(store, threadId, (state) => ({
      write: renewLease({ ...state.document!, activeRun: { runId: 'r', leaseId: 'l', expiresAt: NOW } }, NOW + 1),
      value: state.revision,
    }));
    expect(outcome).toMatchObject({ value: 1, written: true, state: { revision: 2 } });
    expect(store.loads).toBe(0);
    expect(store.saves).toEqual([1]);
  });

  it('meets a conflict when the memory is stale, then loads and decides again on what is stored', async () => {
    const store = new RememberingStore();
    const threadId = uniqueId('thread');
    const first = released(admitted(threadId, 'lease-1'));
    await store.save(threadId, first, 0);
    await store.save(threadId, first, 1);
    store.remembered = { document: first, revision: 1 };
    store.saves = [];
    const seen: number[] = [];
    const outcome = await compareAndSwap(store, threadId, (state) => {
      seen.push(state.revision);
      return { write: state.document as ThreadDocument, value: 'written' };
    });
    expect(seen).toEqual([1, 2]);
    expect(store.saves).toEqual([1, 2]);
    expect(store.loads).toBe(1);
    expect(outcome.state.revision).toBe(3);
  });

  it('never refuses on memory: a thread remembered busy but stored free is admitted after one load', async () => {
    const store = new RememberingStore();
    const threadId = uniqueId('thread');
    const busy = admitted(threadId, 'lease-other');
    await store.save(threadId, busy, 0);
    await store.save(threadId, released(busy), 1);
    store.remembered = { document: busy, revision: 1 };
    const request = parseRunRequest(runBody({ threadId }), { allowedRoots: [], caller: SERVICE });
    const result = await admit(store, request, admission);
    expect(result.thread.leaseId).toBe('lease-new');
    expect(store.loads).toBe(1);
    expect((await store.load(threadId))?.revision).toBe(3);
  });

  it('refuses when the fresh load refuses too, having written nothing', async () => {
    const store = new RememberingStore();
    const threadId = uniqueId('thread');
    const busy = admitted(threadId, 'lease-other');
    await store.save(threadId, busy, 0);
    store.remembered = { document: busy, revision: 1 };
    store.saves = [];
    const request = parseRunRequest(runBody({ threadId }), { allowedRoots: [], caller: SERVICE });
    const refusal = await admit(store, request, admission).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AdapterError);
    expect((refusal as AdapterError).code).toBe('THREAD_BUSY');
    expect(store.loads).toBe(1);
    expect(store.saves).toEqual([]);
  });

  it('decides again on a load when the remembered state asks to write nothing', async () => {
    const store = new RememberingStore();
    const threadId = uniqueId('thread');
    const document = released(admitted(threadId, 'lease-1'));
    await store.save(threadId, document, 0);
    store.remembered = { document, revision: 1 };
    const outcome = await compareAndSwap(store, threadId, (state) => ({ value: state.revision }));
    expect(outcome).toMatchObject({ value: 1, written: false });
    expect(store.loads).toBe(1);
  });

  it('is never consulted by a run’s own writes, which start from the document the run holds', async () => {
    const store = new RememberingStore();
    const threadId = uniqueId('thread');
    const held = admitted(threadId, 'lease-1');
    await store.save(threadId, held, 0);
    // A stale memory of someone else's lease must not make the run believe it lost the thread.
    store.remembered = { document: admitted(threadId, 'lease-other'), revision: 1 };
    const thread = new RunThread(store, threadId, 'lease-1', 'execution-1', held, 1);
    await thread.update((document) => renewLease(document, NOW + 10_000));
    expect(store.loads).toBe(0);
    expect(thread.document.activeRun?.expiresAt).toBe(NOW + 10_000);
  });
});
