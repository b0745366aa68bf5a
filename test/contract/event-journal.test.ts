/** The EventJournal contract on the memory, file and OSS drivers (docs/state-store.md "The event journal"). */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { FileEventJournal } from '../../lib/adapters/file-store/file-journal.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { MemoryEventJournal } from '../support/memory-journal.js';
import { ossStore } from '../support/oss.js';
import { describeEventJournalContract } from './event-journal-contract.js';

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator();
});
afterAll(async () => emulator.close());

describeEventJournalContract('memory', async () => new MemoryEventJournal());
describeEventJournalContract('file', async () => new FileEventJournal(await mkdtemp(join(tmpdir(), 'agui-journal-'))));
describeEventJournalContract('oss', async () => ossStore(emulator).journal);
