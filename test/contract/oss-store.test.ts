/**
 * The store contract on the OSS driver, against the real OSS emulator through the real ali-oss
 * client (V4 signatures). Pruning is made frequent (keep 3) so the contract's long histories,
 * races and stalled writers all run across pruned revisions.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { encodeEnvelope } from '../../lib/adapters/oss-store/envelope.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { objectKeyOf, ossObjects, ossStore, rawClient, storedEnvelope, storedRevisions } from '../support/oss.js';
import { describeThreadStoreContract } from './thread-store-contract.js';

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator();
});
afterAll(async () => emulator.close());

describeThreadStoreContract('oss', async () => ossStore(emulator, { keepRevisions: 3 }), {
  // A second adapter process: its own client and its own memory of revisions.
  reopen: async () => ossStore(emulator, { keepRevisions: 3 }),
  corrupt: async (_store, threadId) => {
    const newest = storedRevisions(emulator, threadId)[0] as number;
    await rawClient(emulator).put(objectKeyOf(threadId, newest), Buffer.from('{"revision":'));
  },
  // The writer created its revision object, then died before verifying (or pruning).
  crashMidSave: async (_store, threadId, document, expected) => {
    const previous = storedEnvelope(emulator, threadId, expected);
    const body = encodeEnvelope({ revision: expected + 1, writeId: randomUUID(), previousWriteId: previous?.writeId ?? null, document });
    await ossObjects(emulator).create(objectKeyOf(threadId, expected + 1), body);
  },
});
