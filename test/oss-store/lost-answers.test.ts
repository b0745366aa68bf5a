/**
 * Faults on the wire (docs/state-store.md "Lost answers", "Errors"), injected by the real OSS
 * emulator: a create applied but unanswered is recognised as the writer's own; a create that did
 * not land is retried (forbid-overwrite keeps it single-creation); a lost answer on a revision
 * someone else took is a conflict; 5xx, timeouts and slowness end as StoreUnavailableError after a
 * bounded number of tries; credentials that OSS refuses are not retried at all.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { errorFields } from '../../lib/core/error-fields.js';
import { StoreConflictError, StoreUnavailableError } from '../../lib/core/ports.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { uniqueId } from '../support/fixtures.js';
import { interpose, objectKeyOf, ossStore, storedEnvelope, storedRevisions } from '../support/oss.js';

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator();
});
afterAll(async () => emulator.close());
beforeEach(() => {
  emulator.clearFaults();
  emulator.resetCounters();
});

async function threadAtRevision1(): Promise<{ threadId: string; store: ReturnType<typeof ossStore> }> {
  const threadId = uniqueId('thread');
  const store = ossStore(emulator, { timeoutMs: 300 });
  await store.save(threadId, { n: 1 }, 0);
  emulator.resetCounters();
  return { threadId, store };
}

describe('a create whose answer was lost', () => {
  it('is recognised as the writer’s own when it was applied (dropAfterApply)', async () => {
    const { threadId, store } = await threadAtRevision1();
    emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), dropAfterApply: true });
    expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
    // One create, one read-back that found our writeId, one verifying listing — no second create.
    expect(emulator.counters).toMatchObject({ PutObject: 1, GetObject: 1, ListObjectsV2: 1 });
    expect(await ossStore(emulator).load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
  });

  it('is created again when it was not applied (a dropped connection, a 500, a 503)', async () => {
    for (const fault of [{ drop: true }, { status: 500 }, { status: 503, code: 'SlowDown' }]) {
      const { threadId, store } = await threadAtRevision1();
      emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), ...fault });
      expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
      expect(emulator.counters).toMatchObject({ PutObject: 2, GetObject: 1 });
      expect(storedEnvelope(emulator, threadId, 2)?.document).toEqual({ n: 2 });
    }
  });

  it('is recognised even when the read-back fails too and the retried create meets its own object', async () => {
    const { threadId, store } = await threadAtRevision1();
    emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), dropAfterApply: true });
    emulator.addFault({ operation: 'GetObject', keyPrefix: objectKeyOf(threadId, 2), status: 500 });
    expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
    // create (lost) → read-back (500) → create again (409, ours) → read-back (ours) → verify.
    expect(emulator.counters).toMatchObject({ PutObject: 2, GetObject: 2, ListObjectsV2: 1 });
    expect(storedRevisions(emulator, threadId)).toEqual([2, 1]);
  });

  it('is a conflict when another writer took the revision meanwhile', async () => {
    const { threadId } = await threadAtRevision1();
    let raced = false;
    const wrap = (objects: OssObjects): OssObjects =>
      interpose(objects, {
        read: async (key) => {
          if (!raced && key === objectKeyOf(threadId, 2)) {
            raced = true;
            const other = ossStore(emulator);
            await other.load(threadId);
            await other.save(threadId, { by: 'other' }, 1);
          }
          return objects.read(key);
        },
      });
    const store = ossStore(emulator, { wrap });
    await store.load(threadId);
    emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), drop: true });
    await expect(store.save(threadId, { by: 'mine' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(storedEnvelope(emulator, threadId, 2)?.document).toEqual({ by: 'other' });
  });

  it('lands once even when a slow create outlives the client timeout and is tried again', async () => {
    // This emulator's delays last until the test ends them: the first create is still held when the
    // retried one lands, on any machine, and is let through only then.
    const held: Array<() => void> = [];
    const slow = await startOssEmulator({ sleep: () => new Promise<void>((resolve) => held.push(resolve)) });
    try {
      const threadId = uniqueId('thread');
      const store = ossStore(slow, { timeoutMs: 300 });
      await store.save(threadId, { n: 1 }, 0);
      slow.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), delayMs: 600 });
      expect(await store.save(threadId, { n: 2 }, 1)).toBe(2);
      // The save timed out on the held create and tried again; the held one has not landed yet.
      expect(held).toHaveLength(1);
      expect(slow.counters.PutObject).toBeGreaterThanOrEqual(3);
      for (const release of held.splice(0)) release();
      await slow.idle();
      // The late first create met the retried one's object and changed nothing.
      expect(storedRevisions(slow, threadId)).toEqual([2, 1]);
      expect(await ossStore(slow).load(threadId)).toEqual({ document: { n: 2 }, revision: 2 });
    } finally {
      for (const release of held.splice(0)) release();
      await slow.close();
    }
  });
});

describe('an OSS that keeps failing', () => {
  it('makes a save StoreUnavailableError after a bounded number of tries, having written nothing', async () => {
    const { threadId, store } = await threadAtRevision1();
    emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), status: 503, times: Infinity });
    await expect(store.save(threadId, { n: 2 }, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(emulator.counters.PutObject).toBe(3);
    expect(storedRevisions(emulator, threadId)).toEqual([1]);
  });

  it('makes a load StoreUnavailableError on 5xx, on dropped connections and on slowness beyond the timeout', async () => {
    for (const fault of [{ status: 500 }, { drop: true }, { delayMs: 1_000 }]) {
      const { threadId, store } = await threadAtRevision1();
      emulator.addFault({ operation: 'ListObjectsV2', keyPrefix: `agui/threads/${threadId}/`, times: Infinity, ...fault });
      await expect(store.load(threadId)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(emulator.counters.ListObjectsV2).toBe(3);
      emulator.clearFaults();
    }
  });

  it('rides out one transient failure of a read', async () => {
    const { threadId, store } = await threadAtRevision1();
    emulator.addFault({ operation: 'GetObject', keyPrefix: objectKeyOf(threadId, 1), status: 503 });
    expect(await store.load(threadId)).toEqual({ document: { n: 1 }, revision: 1 });
  });

  it('does not retry what OSS refuses (wrong credentials): one request, StoreUnavailableError without the secret', async () => {
    const threadId = uniqueId('thread');
    const store = ossStore(emulator, { accessKeySecret: 'not-the-secret-4711' });
    const error = await store.load(threadId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/403 SignatureDoesNotMatch/);
    expect(JSON.stringify(error)).not.toContain('4711');
    expect(String((error as Error).message) + String((error as Error).cause)).not.toContain('4711');
    expect(emulator.counters.total).toBe(1);
  });

  it('keeps the failed request’s OSS request id, status and code in the error chain for the log (docs/architecture.md §5)', async () => {
    const store = ossStore(emulator, { accessKeySecret: 'not-the-secret-4711' });
    const error = await store.save(uniqueId('thread'), { n: 1 }, 0).catch((caught: unknown) => caught);
    const fields = errorFields(error);
    expect(fields).toMatchObject({ name: 'StoreUnavailableError' });
    // The emulator answers like OSS: a 24-character upper-case hex x-oss-request-id.
    expect(fields.cause).toMatchObject({
      name: 'OssRequestError',
      kind: 'rejected',
      status: 403,
      code: 'SignatureDoesNotMatch',
      requestId: expect.stringMatching(/^[0-9A-F]{24}$/),
    });
    expect(JSON.stringify(fields)).not.toContain('4711');
  });
});
