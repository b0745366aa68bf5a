/**
 * The compare-and-swap contract every ThreadStore driver must keep (SPEC §5). Run against each
 * driver by its own *.test.ts file.
 */
import { describe, expect, it } from 'vitest';
import { StoreConflictError, type ThreadStore } from '../../lib/core/ports.js';
import { uniqueId } from '../support/fixtures.js';

export function describeThreadStoreContract(name: string, makeStore: () => Promise<ThreadStore>): void {
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
      expect(await store.load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
    });

    it('lets exactly one of many concurrent writers win each revision', async () => {
      const store = await makeStore();
      const threadId = uniqueId('thread');
      for (let round = 0; round < 5; round += 1) {
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
  });
}
