/**
 * The store contract on the OSS driver as production runs it (OssStoreProvider: the prune hold and
 * remembered documents; docs/state-store.md "The hold"), three times: with the emulator's clock at
 * real time — nothing is ever old enough to prune, and saves are proven by time — and with its clock
 * running 6,000 and 60,000 times faster — the ten minutes of hold pass in 100 ms or 10 ms, so pruning
 * frees names under stalled writers and saves alternate between proofs by time and verifying
 * listings. Whichever way a save is proven, the contract must hold.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { encodeEnvelope } from '../../lib/adapters/oss-store/envelope.js';
import { DEFAULT_HOLD } from '../../lib/adapters/oss-store/hold.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { objectKeyOf, ossObjects, ossStore, rawClient, storedEnvelope, storedRevisions } from '../support/oss.js';
import { describeThreadStoreContract } from './thread-store-contract.js';

/** How many times faster than real time each emulator's clock runs. */
const SPEEDS = [1, 6_000, 60_000];
const emulators = new Map<number, OssEmulator>();

beforeAll(async () => {
  const started = Date.now();
  for (const speed of SPEEDS) emulators.set(speed, await startOssEmulator({ clock: () => started + (Date.now() - started) * speed }));
});
afterAll(async () => {
  for (const emulator of emulators.values()) await emulator.close();
});

for (const speed of SPEEDS) {
  const emulator = (): OssEmulator => emulators.get(speed) as OssEmulator;
  const store = () => ossStore(emulator(), { keepRevisions: 3, hold: DEFAULT_HOLD, rememberDocuments: true });
  describeThreadStoreContract(`oss with the hold and remembered documents, server clock ${speed === 1 ? 'real' : `${speed.toLocaleString('en')}× fast`}`, async () => store(), {
    reopen: async () => store(),
    corrupt: async (_store, threadId) => {
      const newest = storedRevisions(emulator(), threadId)[0] as number;
      await rawClient(emulator()).put(objectKeyOf(threadId, newest), Buffer.from('{"revision":'));
    },
    crashMidSave: async (_store, threadId, document, expected) => {
      const previous = storedEnvelope(emulator(), threadId, expected);
      const body = encodeEnvelope({ revision: expected + 1, writeId: randomUUID(), previousWriteId: previous?.writeId ?? null, document });
      await ossObjects(emulator()).create(objectKeyOf(threadId, expected + 1), body);
    },
  });
}
