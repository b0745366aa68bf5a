/**
 * Pruning and the two traps docs/architecture.md §3.5 asks to design out (docs/state-store.md "Pruning", "Crash
 * windows"): a stalled writer re-creating a pruned revision must never believe it committed, and a
 * writer may die between any two of its requests. Also: the newest revision is never pruned, long
 * leftovers are pruned page by page, and a newest revision pruned under a reader is re-listed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '../../lib/adapters/oss-store/envelope.js';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { StoreConflictError } from '../../lib/core/ports.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { uniqueId } from '../support/fixtures.js';
import { interpose, objectKeyOf, ossObjects, ossStore, storedEnvelope, storedRevisions } from '../support/oss.js';

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator();
});
afterAll(async () => emulator.close());

async function writeRevisions(threadId: string, from: number, to: number, keepRevisions: number): Promise<void> {
  const store = ossStore(emulator, { keepRevisions });
  for (let revision = from; revision <= to; revision += 1) await store.save(threadId, { by: 'live', revision }, revision - 1);
}

describe('pruning', () => {
  it('keeps between KEEP and 2·KEEP−1 revisions, always the newest, whatever the history length', async () => {
    const store = ossStore(emulator, { keepRevisions: 4 });
    const threadId = uniqueId('thread');
    for (let revision = 1; revision <= 30; revision += 1) {
      await store.save(threadId, { revision }, revision - 1);
      const kept = storedRevisions(emulator, threadId);
      expect(kept[0]).toBe(revision);
      expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => revision - index));
      expect(kept.length).toBeGreaterThanOrEqual(Math.min(revision, 4));
      expect(kept.length).toBeLessThanOrEqual(7);
    }
  });

  it('prunes long leftovers page by page (listing and multi-delete pagination)', async () => {
    const threadId = uniqueId('thread');
    // 25 revisions written with pruning effectively off, then one store that prunes with pages of 4.
    await writeRevisions(threadId, 1, 25, 1_000);
    expect(storedRevisions(emulator, threadId)).toHaveLength(25);
    emulator.resetCounters();
    const store = ossStore(emulator, { keepRevisions: 1, pageSize: 4 });
    expect(await store.load(threadId)).toEqual({ document: { by: 'live', revision: 25 }, revision: 25 });
    await store.save(threadId, { revision: 26 }, 25);
    expect(storedRevisions(emulator, threadId)).toEqual([26]);
    // 25 old names in pages of 4 → 7 listings for the prune, plus one for load and one for verify.
    expect(emulator.counters.ListObjectsV2).toBe(9);
  });

  it('re-lists when the newest revision is pruned between a reader’s listing and its read', async () => {
    const threadId = uniqueId('thread');
    await writeRevisions(threadId, 1, 2, 2);
    let interfered = false;
    const wrap = (objects: OssObjects): OssObjects =>
      interpose(objects, {
        read: async (key) => {
          if (!interfered) {
            interfered = true;
            await writeRevisions(threadId, 3, 6, 2);
          }
          return objects.read(key);
        },
      });
    const reader = ossStore(emulator, { wrap });
    expect(await reader.load(threadId)).toEqual({ document: { by: 'live', revision: 6 }, revision: 6 });
    expect(interfered).toBe(true);
  });
});

describe('a stalled writer whose base revision was pruned', () => {
  it('re-creates the pruned successor, finds it was built on by someone else, reports a conflict and removes its orphan', async () => {
    const threadId = uniqueId('thread');
    await writeRevisions(threadId, 1, 1, 2);
    const stalled = ossStore(emulator, { keepRevisions: 2 });
    expect((await stalled.load(threadId))?.revision).toBe(1);
    // Revisions 2..4 are written; the prune at 4 deletes 1 and 2, so revision 2's name is free again.
    await writeRevisions(threadId, 2, 4, 2);
    expect(storedRevisions(emulator, threadId)).toEqual([4, 3]);
    const realThird = storedEnvelope(emulator, threadId, 3);
    emulator.resetCounters();
    await expect(stalled.save(threadId, { by: 'stalled' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    // It did create revision 2 (forbid-overwrite cannot see a deleted object), then verified.
    expect(emulator.counters).toMatchObject({ PutObject: 1, ListObjectsV2: 1, GetObject: 1, DeleteObject: 1 });
    expect(storedRevisions(emulator, threadId)).toEqual([4, 3]);
    expect(storedEnvelope(emulator, threadId, 3)).toEqual(realThird);
    expect((await stalled.load(threadId))?.document).toEqual({ by: 'live', revision: 4 });
  });

  it('also reports a conflict when the revision after its own is gone too', async () => {
    const threadId = uniqueId('thread');
    await writeRevisions(threadId, 1, 1, 2);
    const stalled = ossStore(emulator, { keepRevisions: 2 });
    await stalled.load(threadId);
    await writeRevisions(threadId, 2, 8, 2);
    expect(storedRevisions(emulator, threadId)).toEqual([8, 7]);
    await expect(stalled.save(threadId, { by: 'stalled' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(storedRevisions(emulator, threadId)).toEqual([8, 7]);
  });

  it('is harmless even when it dies right after the create: the orphan is never read and the next prune removes it', async () => {
    const threadId = uniqueId('thread');
    await writeRevisions(threadId, 1, 4, 2);
    // A writer that read revision 1 long ago creates revision 2 into the gap and dies before verifying.
    const orphan = encodeEnvelope({ revision: 2, writeId: randomUUID(), previousWriteId: 'revision-1-writer', document: { by: 'dead' } });
    await ossObjects(emulator).create(objectKeyOf(threadId, 2), orphan);
    expect(storedRevisions(emulator, threadId)).toEqual([4, 3, 2]);
    const reader = ossStore(emulator, { keepRevisions: 2 });
    expect(await reader.load(threadId)).toEqual({ document: { by: 'live', revision: 4 }, revision: 4 });
    await reader.save(threadId, { by: 'live', revision: 5 }, 4);
    await reader.save(threadId, { by: 'live', revision: 6 }, 5);
    expect(storedRevisions(emulator, threadId)).toEqual([6, 5]);
  });
});

describe('a writer that committed but is slow to verify', () => {
  it('still knows it committed when others built on its revision before it listed', async () => {
    const threadId = uniqueId('thread');
    await writeRevisions(threadId, 1, 1, 8);
    const wrap = (objects: OssObjects): OssObjects =>
      interpose(objects, {
        create: async (key, body) => {
          await objects.create(key, body);
          // Between our create and our verification, another instance reads ours and builds on it.
          const other = ossStore(emulator);
          const seen = await other.load(threadId);
          await other.save(threadId, { by: 'other' }, seen!.revision);
        },
      });
    const slow = ossStore(emulator, { wrap });
    await slow.load(threadId);
    expect(await slow.save(threadId, { by: 'slow' }, 1)).toBe(2);
    expect(storedEnvelope(emulator, threadId, 2)?.document).toEqual({ by: 'slow' });
    expect(storedEnvelope(emulator, threadId, 3)?.previousWriteId).toBe(storedEnvelope(emulator, threadId, 2)?.writeId);
  });
});
