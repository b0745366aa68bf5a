/**
 * The compare-and-swap contract every ThreadStore driver must keep (docs/architecture.md §3.2, §7). Run against each
 * driver by its own *.test.ts file. Cases that need to reach behind the driver (a second process on
 * the same backing store, corrupt bytes, a writer dying half-way through a save) use the optional
 * harness; a driver that has no such thing (memory: one process, no bytes, one step) omits it.
 */
import { describe, expect, it } from 'vitest';
import { StoreConflictError, StoreCorruptError, type ThreadStore } from '../../lib/core/ports.js';
import { uniqueId } from '../support/fixtures.js';

export interface ContractHarness {
  /** Another handle on the same backing store, as a second adapter process would open it. */
  reopen?: (store: ThreadStore) => Promise<ThreadStore>;
  /** Replaces the stored bytes of the thread's current document with garbage. */
  corrupt?: (store: ThreadStore, threadId: string) => Promise<void>;
  /** Takes the first step(s) of saving `document` as revision expected + 1, then "dies". */
  crashMidSave?: (store: ThreadStore, threadId: string, document: unknown, expected: number) => Promise<void>;
}

export function describeThreadStoreContract(name: string, makeStore: () => Promise<ThreadStore>, harness: ContractHarness = {}): void {
  const other = async (store: ThreadStore): Promise<ThreadStore> => (harness.reopen ? harness.reopen(store) : store);

  describe(`ThreadStore contract: ${name}`, () => {
    it('creates at revision 1, reads back what it saved, and knows nothing of other threads', async () => {
      const store = await makeStore();
      const threadId = uniqueId('thread');
      expect(await store.load(threadId)).toBeUndefined();
      expect(await store.save(threadId, { n: 1, text: 'naïve 会话' }, 0)).toBe(1);
      expect(await store.load(threadId)).toEqual({ document: { n: 1, text: 'naïve 会话' }, revision: 1 });
      expect(await store.load(`${threadId}-other`)).toBeUndefined();
    });

    it('updates only from the current revision and reports a conflict otherwise', async () => {
      const store = await makeStore();
      const threadId = uniqueId('thread');
      await store.save(threadId, { n: 1 }, 0);
      expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
      await expect(store.save(threadId, { n: 'stale' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store.save(threadId, { n: 'recreate' }, 0)).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store.save(threadId, { n: 'ahead' }, 5)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await store.load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
    });

    it('lets exactly one of many concurrent writers win each revision', async () => {
      const store = await makeStore();
      const threadId = uniqueId('thread');
      for (let round = 0; round < 10; round += 1) {
        const results = await Promise.allSettled(Array.from({ length: 8 }, (_, writer) => store.save(threadId, { round, writer }, round)));
        const winners = results.filter((result) => result.status === 'fulfilled');
        expect(winners).toHaveLength(1);
        for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(StoreConflictError);
        const stored = await store.load(threadId);
        expect(stored?.revision).toBe(round + 1);
      }
    });

    it('keeps thread ids that differ only by case or encoding apart', async () => {
      const store = await makeStore();
      const base = uniqueId('thread');
      const ids = [`${base}-a`, `${base.toUpperCase()}-A`, `../${base}`, `${base}/x`, `${'会话'.repeat(60)}${base}`];
      for (const [index, id] of ids.entries()) await store.save(id, { index }, 0);
      for (const [index, id] of ids.entries()) expect((await store.load(id))?.document).toEqual({ index });
    });

    it('keeps a long history consistent: every load returns the last save', async () => {
      const store = await makeStore();
      const threadId = uniqueId('thread');
      for (let revision = 1; revision <= 30; revision += 1) {
        expect(await store.save(threadId, { revision }, revision - 1)).toBe(revision);
        expect(await store.load(threadId)).toEqual({ document: { revision }, revision });
      }
    });

    it('never lets a stalled writer that read an old revision commit, whatever happened since', async () => {
      const store = await makeStore();
      const stalled = await other(store);
      const threadId = uniqueId('thread');
      await store.save(threadId, { by: 'first' }, 0);
      // The stalled writer read revision 1, then went quiet while 29 more revisions were written.
      expect((await stalled.load(threadId))?.revision).toBe(1);
      for (let revision = 2; revision <= 30; revision += 1) await store.save(threadId, { by: 'live', revision }, revision - 1);
      await expect(stalled.save(threadId, { by: 'stalled' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
      await expect(stalled.save(threadId, { by: 'stalled' }, 0)).rejects.toBeInstanceOf(StoreConflictError);
      expect(await stalled.load(threadId)).toEqual({ document: { by: 'live', revision: 30 }, revision: 30 });
      expect(await store.save(threadId, { by: 'live', revision: 31 }, 30)).toBe(31);
    });

    if (harness.reopen) {
      it('is one compare-and-swap across handles: each sees the other and stale writes conflict', async () => {
        const a = await makeStore();
        const b = await other(a);
        const threadId = uniqueId('thread');
        await a.save(threadId, { by: 'a' }, 0);
        expect(await b.load(threadId)).toEqual({ document: { by: 'a' }, revision: 1 });
        await b.save(threadId, { by: 'b' }, 1);
        await expect(a.save(threadId, { by: 'a-again' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
        expect(await a.load(threadId)).toEqual({ document: { by: 'b' }, revision: 2 });
        expect(await a.save(threadId, { by: 'a-after-reading' }, 2)).toBe(3);
        expect((await b.load(threadId))?.document).toEqual({ by: 'a-after-reading' });
      });
    }

    if (harness.corrupt) {
      const corrupt = harness.corrupt;
      it('reports a corrupt stored document as StoreCorruptError, for that thread only', async () => {
        const store = await makeStore();
        const [broken, healthy] = [uniqueId('thread'), uniqueId('thread')];
        await store.save(broken, { n: 1 }, 0);
        await store.save(healthy, { n: 1 }, 0);
        await corrupt(store, broken);
        await expect(store.load(broken)).rejects.toBeInstanceOf(StoreCorruptError);
        await expect((await other(store)).load(broken)).rejects.toBeInstanceOf(StoreCorruptError);
        expect(await store.load(healthy)).toEqual({ document: { n: 1 }, revision: 1 });
        expect(await store.save(healthy, { n: 2 }, 1)).toBe(2);
      });
    }

    if (harness.crashMidSave) {
      const crashMidSave = harness.crashMidSave;
      it('stays consistent when a writer dies half-way through a save', async () => {
        const store = await makeStore();
        const threadId = uniqueId('thread');
        await store.save(threadId, { n: 1 }, 0);
        await crashMidSave(store, threadId, { n: 'crashed' }, 1);
        // The dead writer's save either happened as a whole or not at all…
        const seen = await (await other(store)).load(threadId);
        expect([JSON.stringify({ document: { n: 1 }, revision: 1 }), JSON.stringify({ document: { n: 'crashed' }, revision: 2 })]).toContain(JSON.stringify(seen));
        // …and the thread goes on from whatever a reader sees.
        const revision = seen?.revision ?? 0;
        expect(await store.save(threadId, { n: 'after' }, revision)).toBe(revision + 1);
        await expect(store.save(threadId, { n: 'stale' }, revision)).rejects.toBeInstanceOf(StoreConflictError);
        expect(await store.load(threadId)).toEqual({ document: { n: 'after' }, revision: revision + 1 });
      });
    }
  });
}
