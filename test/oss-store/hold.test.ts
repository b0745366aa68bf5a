/**
 * The OSS driver as production runs it (OssStoreProvider: the prune hold and remembered documents;
 * docs/state-store.md "The hold", "Request counts"), against the real emulator whose server clock
 * the tests move: a save whose base was the newest shortly before is a commit with its create
 * alone; once the window has passed it verifies with a listing; pruning deletes only below a
 * revision older than the hold and never the newest; a stalled writer meets a held revision (409)
 * or, past the window, finds the gap by verifying; a lost answer is always verified; a load skips
 * the GET when it remembers the newest revision's bytes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hold } from '../../lib/adapters/oss-store/hold.js';
import { OssStoreProvider } from '../../lib/adapters/oss-store/index.js';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { StoreConflictError } from '../../lib/core/ports.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { uniqueId } from '../support/fixtures.js';
import { interpose, objectKeyOf, ossSettings, ossStore, storedEnvelope, storedRevisions, type TestStoreOptions } from '../support/oss.js';

const HOLD: Hold = { holdMs: 60_000, marginMs: 5_000, proveByTime: true };
let emulator: OssEmulator;
/** How far the emulator's clock runs ahead of the real one. */
let ahead = 0;

beforeAll(async () => {
  emulator = await startOssEmulator({ clock: () => Date.now() + ahead });
});
afterAll(async () => emulator.close());
beforeEach(() => {
  ahead = 0;
  emulator.resetCounters();
});

function requests(): Record<string, number> {
  return Object.fromEntries(Object.entries(emulator.counters).filter(([, count]) => count > 0));
}

/** A store as one production instance holds it: the hold, and the documents it saw remembered. */
function heldStore(options: TestStoreOptions = {}) {
  return ossStore(emulator, { hold: HOLD, rememberDocuments: true, ...options });
}

describe('saves under the hold', () => {
  it('proves a create a commit by time when its base was the newest within the window: one request', async () => {
    const store = heldStore();
    const threadId = uniqueId('thread');
    expect(await store.load(threadId)).toBeUndefined();
    emulator.resetCounters();
    // The empty listing said "nothing yet" moments ago: the first create needs no verifying listing.
    expect(await store.save(threadId, { n: 1 }, 0)).toBe(1);
    expect(requests()).toEqual({ PutObject: 1, total: 1 });
    emulator.resetCounters();
    expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
    expect(await store.save(threadId, { n: 3 }, 2)).toBe(3);
    expect(requests()).toEqual({ PutObject: 2, total: 2 });
    const [first, second, third] = [1, 2, 3].map((revision) => storedEnvelope(emulator, threadId, revision));
    expect(second?.previousWriteId).toBe(first?.writeId);
    expect(third?.previousWriteId).toBe(second?.writeId);
  });

  it('verifies with a listing once the window since its base was known newest has passed', async () => {
    const store = heldStore();
    const threadId = uniqueId('thread');
    await store.load(threadId);
    await store.save(threadId, { n: 1 }, 0);
    ahead = HOLD.holdMs - HOLD.marginMs + 2_000;
    emulator.resetCounters();
    expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
    expect(requests()).toEqual({ PutObject: 1, ListObjectsV2: 1, total: 2 });
    // The listing said "ours is the newest" just now: the next save is proven by time again.
    emulator.resetCounters();
    await store.save(threadId, { n: 3 }, 2);
    expect(requests()).toEqual({ PutObject: 1, total: 1 });
  });

  it('verifies a create whose answer was lost and settled by reading it back', async () => {
    const store = heldStore();
    const threadId = uniqueId('thread');
    await store.load(threadId);
    await store.save(threadId, { n: 1 }, 0);
    emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), dropAfterApply: true });
    emulator.resetCounters();
    expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
    expect(requests()).toEqual({ PutObject: 1, GetObject: 1, ListObjectsV2: 1, total: 3 });
    expect(storedRevisions(emulator, threadId)).toEqual([2, 1]);
  });

  it('meets a conflict with the create alone when another instance wrote first, and loads what it wrote', async () => {
    const [mine, theirs] = [heldStore(), heldStore()];
    const threadId = uniqueId('thread');
    await mine.load(threadId);
    await mine.save(threadId, { by: 'mine' }, 0);
    await theirs.load(threadId);
    await theirs.save(threadId, { by: 'theirs' }, 1);
    emulator.resetCounters();
    await expect(mine.save(threadId, { by: 'mine again' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(requests()).toEqual({ PutObject: 1, total: 1 });
    expect(await mine.load(threadId)).toEqual({ document: { by: 'theirs' }, revision: 2 });
  });
});

describe('loads and what an instance remembers', () => {
  it('loads with one listing when it remembers the newest revision’s bytes, and reads them otherwise', async () => {
    const [writer, other] = [heldStore(), heldStore()];
    const threadId = uniqueId('thread');
    await writer.load(threadId);
    await writer.save(threadId, { n: 1 }, 0);
    emulator.resetCounters();
    expect(await writer.load(threadId)).toEqual({ document: { n: 1 }, revision: 1 });
    expect(requests()).toEqual({ ListObjectsV2: 1, total: 1 });
    emulator.resetCounters();
    expect(await other.load(threadId)).toEqual({ document: { n: 1 }, revision: 1 });
    expect(requests()).toEqual({ ListObjectsV2: 1, GetObject: 1, total: 2 });
    await other.save(threadId, { n: 2 }, 1);
    // The writer's memory is one revision behind: its listing names revision 2, which it reads.
    emulator.resetCounters();
    expect(await writer.load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
    expect(requests()).toEqual({ ListObjectsV2: 1, GetObject: 1, total: 2 });
  });

  it('hands compare-and-swap the remembered revision without a request, and nothing when it remembers none', async () => {
    const [writer, other] = [heldStore(), heldStore()];
    const threadId = uniqueId('thread');
    expect(writer.cached(threadId)).toBeUndefined();
    await writer.load(threadId);
    await writer.save(threadId, { n: 1 }, 0);
    emulator.resetCounters();
    expect(writer.cached(threadId)).toEqual({ document: { n: 1 }, revision: 1 });
    expect(other.cached(threadId)).toBeUndefined();
    expect(requests()).toEqual({});
    // Without remembered documents (the class default) there is nothing to hand out.
    const plain = ossStore(emulator);
    await plain.load(threadId);
    expect(plain.cached(threadId)).toBeUndefined();
  });
});

describe('pruning under the hold', () => {
  it('deletes nothing younger than the hold, then only below a revision older than it, never the newest', async () => {
    const store = heldStore({ keepRevisions: 2 });
    const threadId = uniqueId('thread');
    await store.load(threadId);
    for (let revision = 1; revision <= 4; revision += 1) await store.save(threadId, { revision }, revision - 1);
    await store.idle();
    expect(storedRevisions(emulator, threadId)).toEqual([4, 3, 2, 1]);
    ahead = HOLD.holdMs + 2_000;
    for (let revision = 5; revision <= 6; revision += 1) await store.save(threadId, { revision }, revision - 1);
    await store.idle();
    // The prune at 6 (floor 4) may delete only below revision 4, the newest one older than the hold.
    expect(storedRevisions(emulator, threadId)).toEqual([6, 5, 4]);
    expect(await heldStore().load(threadId)).toEqual({ document: { revision: 6 }, revision: 6 });
  });

  it('prunes in the background: the save that triggers it answers before the prune deletes anything', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const wrap = (objects: OssObjects): OssObjects =>
      interpose(objects, {
        removeMany: async (keys) => {
          await gate;
          return objects.removeMany(keys);
        },
      });
    const store = heldStore({ keepRevisions: 2, wrap });
    const threadId = uniqueId('thread');
    await store.load(threadId);
    for (let revision = 1; revision <= 3; revision += 1) await store.save(threadId, { revision }, revision - 1);
    ahead = HOLD.holdMs + 2_000;
    expect(await store.save(threadId, { revision: 4 }, 3)).toBe(4);
    expect(storedRevisions(emulator, threadId)).toEqual([4, 3, 2, 1]);
    release();
    await store.idle();
    expect(storedRevisions(emulator, threadId)).toEqual([4, 3]);
  });
});

describe('a stalled writer under the hold', () => {
  it('meets the held successor of its base and gets a conflict from its create', async () => {
    const threadId = uniqueId('thread');
    const writer = heldStore({ keepRevisions: 2 });
    await writer.load(threadId);
    await writer.save(threadId, { by: 'live', revision: 1 }, 0);
    const stalled = heldStore({ keepRevisions: 2 });
    expect((await stalled.load(threadId))?.revision).toBe(1);
    for (let revision = 2; revision <= 8; revision += 1) await writer.save(threadId, { by: 'live', revision }, revision - 1);
    await writer.idle();
    // Everything is younger than the hold: revision 2 still exists, so forbid-overwrite refuses.
    expect(storedRevisions(emulator, threadId)).toContain(2);
    emulator.resetCounters();
    await expect(stalled.save(threadId, { by: 'stalled' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(requests()).toEqual({ PutObject: 1, total: 1 });
  });

  it('past the hold, fills the pruned gap, cannot prove it by time, verifies, reports a conflict and removes its orphan', async () => {
    const threadId = uniqueId('thread');
    const writer = heldStore({ keepRevisions: 2 });
    await writer.load(threadId);
    for (let revision = 1; revision <= 4; revision += 1) await writer.save(threadId, { by: 'live', revision }, revision - 1);
    const stalled = heldStore({ keepRevisions: 2 });
    await stalled.load(threadId);
    // The stalled writer read revision 4; the writer goes on past the hold and prunes up to it.
    for (let revision = 5; revision <= 8; revision += 1) await writer.save(threadId, { by: 'live', revision }, revision - 1);
    ahead = HOLD.holdMs + 2_000;
    for (let revision = 9; revision <= 10; revision += 1) await writer.save(threadId, { by: 'live', revision }, revision - 1);
    await writer.idle();
    expect(storedRevisions(emulator, threadId)).toEqual([10, 9, 8]);
    emulator.resetCounters();
    // Its base (4) was the newest more than the window ago: it lists, finds 10, reads 6 (gone) → conflict.
    await expect(stalled.save(threadId, { by: 'stalled' }, 4)).rejects.toBeInstanceOf(StoreConflictError);
    expect(requests()).toEqual({ PutObject: 1, ListObjectsV2: 1, GetObject: 1, DeleteObject: 1, total: 4 });
    expect(storedRevisions(emulator, threadId)).toEqual([10, 9, 8]);
    expect((await stalled.load(threadId))?.document).toEqual({ by: 'live', revision: 10 });
  });
});

describe('the provider (the production path)', () => {
  it('holds prunes and proves saves by time, unless told to verify every save while upgrading', async () => {
    for (const [verifyEverySave, perSave] of [
      [false, { PutObject: 1, total: 1 }],
      [true, { PutObject: 1, ListObjectsV2: 1, total: 2 }],
    ] as const) {
      const store = new OssStoreProvider(ossSettings(emulator, { verifyEverySave })).storeFor();
      const threadId = uniqueId('thread');
      await store.load(threadId);
      await store.save(threadId, { n: 1 }, 0);
      emulator.resetCounters();
      await store.save(threadId, { n: 2 }, 1);
      expect(requests()).toEqual(perSave);
      // Remembered documents either way: a load is one listing.
      emulator.resetCounters();
      expect(await store.load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
      expect(requests()).toEqual({ ListObjectsV2: 1, total: 1 });
    }
  });
});
