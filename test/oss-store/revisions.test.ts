/**
 * The OSS driver's objects and requests (docs/state-store.md "Objects", "Request counts"): one
 * immutable object per revision, newest-first names, the writeId chain, and the exact OSS requests
 * of a load and of a save — counted by the real emulator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '../../lib/adapters/oss-store/envelope.js';
import { DEFAULT_HOLD } from '../../lib/adapters/oss-store/hold.js';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { StoreConflictError, StoreCorruptError } from '../../lib/core/ports.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { uniqueId } from '../support/fixtures.js';
import { interpose, objectKeyOf, ossStore, rawClient, storedEnvelope, storedRevisions, TEST_BUCKET } from '../support/oss.js';

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator();
});
afterAll(async () => emulator.close());
beforeEach(() => emulator.resetCounters());

/** Requests since the last reset, without the zero entries. */
function requests(): Record<string, number> {
  return Object.fromEntries(Object.entries(emulator.counters).filter(([, count]) => count > 0));
}

describe('objects', () => {
  it('stores each revision as its own object under <prefix>/threads/<thread-key>/r/, listed newest first', async () => {
    const store = ossStore(emulator);
    const threadId = uniqueId('thread');
    for (let revision = 1; revision <= 3; revision += 1) await store.save(threadId, { revision }, revision - 1);
    const keys = emulator.objectKeys(TEST_BUCKET).filter((key) => key.includes(threadId));
    expect(keys).toEqual([`agui/threads/${threadId}/r/999999999996-3.json`, `agui/threads/${threadId}/r/999999999997-2.json`, `agui/threads/${threadId}/r/999999999998-1.json`]);
    expect(storedRevisions(emulator, threadId)).toEqual([3, 2, 1]);
  });

  it('chains every revision to the writeId of the one it was built on', async () => {
    const store = ossStore(emulator);
    const threadId = uniqueId('thread');
    for (let revision = 1; revision <= 3; revision += 1) await store.save(threadId, { revision }, revision - 1);
    const [first, second, third] = [1, 2, 3].map((revision) => storedEnvelope(emulator, threadId, revision)!);
    expect(first).toMatchObject({ revision: 1, previousWriteId: null, document: { revision: 1 } });
    expect(second?.previousWriteId).toBe(first?.writeId);
    expect(third?.previousWriteId).toBe(second?.writeId);
    expect(new Set([first?.writeId, second?.writeId, third?.writeId]).size).toBe(3);
  });

  it('keeps thread keys apart: a thread whose key extends another never shows in its listing', async () => {
    const store = ossStore(emulator);
    const base = uniqueId('thread');
    await store.save(base, { who: 'base' }, 0);
    await store.save(`${base}0`, { who: 'longer' }, 0);
    await store.save(`${base}0`, { who: 'longer' }, 1);
    expect(await store.load(base)).toEqual({ document: { who: 'base' }, revision: 1 });
  });

  it('ignores names under the revisions prefix that are not revisions, even ones listed first', async () => {
    const store = ossStore(emulator, { pageSize: 2 });
    const threadId = uniqueId('thread');
    await store.save(threadId, { n: 1 }, 0);
    const prefix = `agui/threads/${threadId}/r/`;
    for (const name of ['.keep', '0-looks-like-a-revision.json', '000000000000-1.json', 'README']) await rawClient(emulator).put(prefix + name, Buffer.from('x'));
    expect(await store.load(threadId)).toEqual({ document: { n: 1 }, revision: 1 });
    expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
    expect(await ossStore(emulator).load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
  });
});

describe('which object a read returns (docs/state-store.md "Load")', () => {
  it('reads an object another tool replaced in place as it now is: the listing names its new bytes', async () => {
    const threadId = uniqueId('thread');
    await ossStore(emulator).save(threadId, { n: 1 }, 0);
    const replaced = encodeEnvelope({ revision: 1, writeId: 'by-hand', previousWriteId: null, document: { n: 'edited' } });
    await rawClient(emulator).put(objectKeyOf(threadId, 1), replaced);
    expect(await ossStore(emulator).load(threadId)).toEqual({ document: { n: 'edited' }, revision: 1 });
  });

  it('calls the thread corrupt when the newest object never holds the bytes its listed ETag names (not a driver upload)', async () => {
    const threadId = uniqueId('thread');
    await ossStore(emulator).save(threadId, { n: 1 }, 0);
    // A multipart upload's ETag is not the MD5 of its bytes; the emulator has no multipart, so the listing says so.
    const wrap = (objects: OssObjects) =>
      interpose(objects, { list: async (prefix, options) => ({ ...(await objects.list(prefix, options)), etags: ['"0F343B0931126A20F133D67C2B018A3B-2"'] }) });
    await expect(ossStore(emulator, { wrap }).load(threadId)).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it('refuses to read when a listing gives no ETag: it could not tell which object the read returned', async () => {
    const threadId = uniqueId('thread');
    await ossStore(emulator).save(threadId, { n: 1 }, 0);
    const wrap = (objects: OssObjects) => interpose(objects, { list: async (prefix, options) => ({ ...(await objects.list(prefix, options)), etags: [] }) });
    await expect(ossStore(emulator, { wrap }).load(threadId)).rejects.toThrow(/without its ETag/);
  });
});

describe('requests per operation', () => {
  it('loads with one listing and one read; an unknown thread costs one listing', async () => {
    const store = ossStore(emulator);
    const threadId = uniqueId('thread');
    await store.save(threadId, { n: 1 }, 0);
    emulator.resetCounters();
    await store.load(threadId);
    expect(requests()).toEqual({ ListObjectsV2: 1, GetObject: 1, total: 2 });
    emulator.resetCounters();
    await store.load(uniqueId('thread'));
    expect(requests()).toEqual({ ListObjectsV2: 1, total: 1 });
  });

  it('saves with one create and one verifying listing once the base revision is known', async () => {
    const store = ossStore(emulator);
    const threadId = uniqueId('thread');
    emulator.resetCounters();
    await store.save(threadId, { n: 1 }, 0);
    expect(requests()).toEqual({ PutObject: 1, ListObjectsV2: 1, total: 2 });
    emulator.resetCounters();
    await store.save(threadId, { n: 2 }, 1);
    expect(requests()).toEqual({ PutObject: 1, ListObjectsV2: 1, total: 2 });
  });

  it('looks a base this instance has not seen up as a load does — the listing names it, then the listed object is read (another instance wrote it)', async () => {
    const threadId = uniqueId('thread');
    await ossStore(emulator).save(threadId, { n: 1 }, 0);
    emulator.resetCounters();
    await ossStore(emulator).save(threadId, { n: 2 }, 1);
    // Without the hold nothing is proven by time: the create is verified by a second listing.
    expect(requests()).toEqual({ GetObject: 1, PutObject: 1, ListObjectsV2: 2, total: 4 });
    emulator.resetCounters();
    await ossStore(emulator, { hold: DEFAULT_HOLD }).save(threadId, { n: 3 }, 2);
    // Under the hold the lookup's listing is also the base time that proves the create.
    expect(requests()).toEqual({ GetObject: 1, PutObject: 1, ListObjectsV2: 1, total: 3 });
  });

  it('answers a conflict without creating anything when a base it has not seen is no longer the newest', async () => {
    const threadId = uniqueId('thread');
    const writer = ossStore(emulator);
    await writer.save(threadId, { n: 1 }, 0);
    await writer.save(threadId, { n: 2 }, 1);
    emulator.resetCounters();
    await expect(ossStore(emulator).save(threadId, { n: 2 }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(requests()).toEqual({ ListObjectsV2: 1, total: 1 });
  });

  it('answers a lost race with a single create (409 FileAlreadyExists) and writes nothing', async () => {
    const [mine, theirs] = [ossStore(emulator), ossStore(emulator)];
    const threadId = uniqueId('thread');
    await mine.save(threadId, { n: 1 }, 0);
    await theirs.load(threadId);
    await theirs.save(threadId, { by: 'theirs' }, 1);
    emulator.resetCounters();
    await expect(mine.save(threadId, { by: 'mine' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(requests()).toEqual({ PutObject: 1, total: 1 });
    expect(storedEnvelope(emulator, threadId, 2)?.document).toEqual({ by: 'theirs' });
  });

  it('prunes on every KEEP-th revision with one listing and one multi-delete', async () => {
    const store = ossStore(emulator, { keepRevisions: 4 });
    const threadId = uniqueId('thread');
    for (let revision = 1; revision <= 7; revision += 1) await store.save(threadId, { revision }, revision - 1);
    emulator.resetCounters();
    await store.save(threadId, { revision: 8 }, 7);
    expect(requests()).toEqual({ PutObject: 1, ListObjectsV2: 2, DeleteMultipleObjects: 1, total: 4 });
    expect(storedRevisions(emulator, threadId)).toEqual([8, 7, 6, 5]);
  });
});
