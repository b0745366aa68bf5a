/**
 * The two schedules in which the OSS compare-and-swap once acknowledged a save it then lost
 * (issue 23; docs/state-store.md "Proofs of the invariants"), replayed request by request on the
 * driver as production configures it (the hold, remembered documents, KEEP 8) against the real
 * emulator, with OSS's clock and its servers' skews under the test's control (test/support/oss-world.ts):
 *
 * 1. skew within the stated bound (every stamp ±15 s) made a create into a pruned gap pass the proof
 *    by time;
 * 2. with no skew, a reader frozen between its listing and its GET read a stalled writer's orphan
 *    as the newest revision, built on it, and the orphan's writer took that as proof it committed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HOLD, provenByTime } from '../../lib/adapters/oss-store/hold.js';
import { StoreConflictError } from '../../lib/core/ports.js';
import { uniqueId } from '../support/fixtures.js';
import { type InstanceOptions, OssWorld, type StoreInstance } from '../support/oss-world.js';

const PRODUCTION: InstanceOptions = { hold: DEFAULT_HOLD, rememberDocuments: true, keepRevisions: 8 };
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

let world: OssWorld;
beforeAll(async () => {
  world = await OssWorld.start();
});
afterAll(async () => world.close());

/** A free-running instance: commits `from`..`to` on top of what it loads, each a single turn. */
async function commit(writer: StoreInstance, threadId: string, from: number, to: number): Promise<void> {
  for (let revision = from; revision <= to; revision += 1) {
    const current = await writer.run(writer.store.load(threadId));
    expect(current?.revision ?? 0).toBe(revision - 1);
    await writer.run(writer.store.save(threadId, { by: writer.name, revision }, revision - 1));
  }
  await writer.run(writer.store.idle());
}

function settled<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return Promise.allSettled([promise]).then(([result]) => result as PromiseSettledResult<T>);
}

describe('schedule 1: OSS servers whose clocks disagree within the stated bound', () => {
  it('never proves by time a create that filled a pruned gap', async () => {
    const threadId = uniqueId('thread');
    const [live, stalled] = [world.instance(uniqueId('live'), PRODUCTION), world.instance(uniqueId('stalled'), PRODUCTION)];
    // The worst arrangement of the bound: listing servers 15 s fast, PutObject servers 15 s slow.
    world.emulator.setSkew(({ operation }) => (operation === 'ListObjectsV2' ? 15 * SECOND : operation === 'PutObject' ? -15 * SECOND : 0));
    try {
      await commit(live, threadId, 1, 1);
      // The stalled writer's base time comes from a listing (15 s fast).
      expect((await stalled.run(stalled.store.load(threadId)))?.revision).toBe(1);
      world.advance(SECOND);
      // Revision 9 is stamped by a slow PutObject server; the prune at 16 lists on a fast one and
      // takes it as older than the hold 14 s before it is.
      await commit(live, threadId, 2, 9);
      world.advance(DEFAULT_HOLD.holdMs - 30 * SECOND);
      await commit(live, threadId, 10, 16);
      expect(world.emulator.objectKeys().filter((key) => key.includes(threadId)).length).toBeLessThan(16);
      world.advance(SECOND);
      // The stalled writer wakes and creates revision 2 into the freed name.
      const save = settled(stalled.run(stalled.store.save(threadId, { by: 'stalled' }, 1)));
      const result = await save;
      expect(result.status === 'rejected' && result.reason instanceof StoreConflictError, 'an acknowledged save into a pruned gap is a lost update').toBe(true);
      const newest = await live.run(live.store.load(threadId));
      expect(newest).toEqual({ document: { by: live.name, revision: 16 }, revision: 16 });
    } finally {
      world.emulator.setSkew(() => world.nextSkewMs);
    }
  });

  it('counts the window strictly: a create answered exactly at its end is not proven by time', () => {
    const window = DEFAULT_HOLD.holdMs - DEFAULT_HOLD.marginMs;
    expect(provenByTime(DEFAULT_HOLD, 0, window - SECOND)).toBe(true);
    expect(provenByTime(DEFAULT_HOLD, 0, window)).toBe(false);
  });
});

describe('schedule 2: a chain of two orphans (no skew)', () => {
  /**
   * Revisions 1–8 are committed and pruned while writer A (base 2) is frozen; A wakes past the
   * hold, creates r/3 into the gap and stops before its verify reads r/4.
   */
  async function orphanAtThree(threadId: string, beforeTheGap: (live: StoreInstance) => Promise<void>) {
    const live = world.instance(uniqueId('live'), PRODUCTION);
    const writerA = world.instance(uniqueId('A'), PRODUCTION);
    await commit(live, threadId, 1, 2);
    expect((await writerA.run(writerA.store.load(threadId)))?.revision).toBe(2);
    await commit(live, threadId, 3, 3);
    await beforeTheGap(live);
    await commit(live, threadId, 4, 9);
    world.advance(DEFAULT_HOLD.holdMs + MINUTE);
    await commit(live, threadId, 10, 16);
    const saveA = settled(writerA.store.save(threadId, { by: 'A' }, 2));
    // A's create lands in the freed r/3; its base is older than the window, so it verifies: a listing, then r/4.
    const waiting = await writerA.stepUntil('GetObject', saveA);
    expect(waiting?.name).toMatch(/-4\.json$/);
    return { live, writerA, saveA };
  }

  it('a reader frozen between its listing and its GET never loads the orphan; its writer is not told it committed', async () => {
    const threadId = uniqueId('thread');
    const reader = world.instance(uniqueId('B'), PRODUCTION);
    let loadB: Promise<PromiseSettledResult<unknown>> | undefined;
    const { live, writerA, saveA } = await orphanAtThree(threadId, async () => {
      // B lists "newest = 3" and freezes before reading it.
      loadB = settled(reader.store.load(threadId));
      expect((await reader.step()).operation).toBe('ListObjectsV2');
      expect((await reader.next()).operation).toBe('GetObject');
    });
    const loaded = await reader.run(loadB as Promise<PromiseSettledResult<unknown>>);
    const base = loaded.status === 'fulfilled' ? (loaded.value as { document: unknown; revision: number }) : undefined;
    // B saves on what it loaded and stops before a verify, if it needs one.
    const saveB = settled(reader.store.save(threadId, { by: 'B' }, base?.revision ?? 0));
    await reader.stepUntil('ListObjectsV2', saveB);
    const resultA = await writerA.run(saveA);
    await reader.run(saveB);
    expect(base, 'B loaded a state that was never committed').toEqual({ document: { by: live.name, revision: 16 }, revision: 16 });
    expect(resultA.status === 'rejected' && resultA.reason instanceof StoreConflictError, 'A was acknowledged a save that is not in the thread').toBe(true);
    expect(JSON.stringify((await live.run(live.store.load(threadId)))?.document)).not.toContain('"A"');
  });

  it('a writer that forgot its base looks it up by listing, never reads the orphan blind', async () => {
    const threadId = uniqueId('thread');
    const reader = world.instance(uniqueId('B'), { ...PRODUCTION, cacheCapacity: 1 });
    let baseB: { document: unknown; revision: number } | undefined;
    const { live, writerA, saveA } = await orphanAtThree(threadId, async () => {
      baseB = await reader.run(reader.store.load(threadId));
      // B's memory of the thread is pushed out by another one.
      await reader.run(reader.store.load(uniqueId('other-thread')));
    });
    expect(baseB?.revision).toBe(3);
    const saveB = settled(reader.store.save(threadId, { by: 'B' }, 3));
    await reader.stepUntil('ListObjectsV2', saveB);
    const resultA = await writerA.run(saveA);
    const resultB = await reader.run(saveB);
    expect(resultB.status === 'rejected' && resultB.reason instanceof StoreConflictError, 'B built on a base that is not current').toBe(true);
    expect(resultA.status === 'rejected' && resultA.reason instanceof StoreConflictError, 'A was acknowledged a save that is not in the thread').toBe(true);
    expect((await live.run(live.store.load(threadId)))?.revision).toBe(16);
  });
});
