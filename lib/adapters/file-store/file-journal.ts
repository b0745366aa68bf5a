/**
 * The event journal on the file driver (docs/state-store.md "The event journal"):
 *
 *   <state-dir>/journal/<thread-key>/<executionId>/<epoch>-<firstSeq>.json   one batch each
 *   <state-dir>/due/<dueAt>~<kind>~<executionId>.json                        {threadId}
 *
 * A batch is created exclusively (`wx`: a second writer of the same key gets a conflict) and never
 * changed. Not `fsync`ed: a journal outlives a killed process through the page cache, and after a
 * power cut a reader finds the journal short — `ahead` of it, never a wrong event
 * (docs/protocol.md §6.15). Only regular files are read; folders 0700, files 0600, as the thread
 * files (docs/architecture.md §3.5).
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type JournalBatch, parseBatch, serializeBatch } from '../../core/journal/batch.js';
import { batchKeyAfter, batchKeyOf, batchName, dueName, dueThreadOf, parseBatchName, parseDueName, safeExecutionId } from '../../core/journal/journal-names.js';
import { type BatchKey, type DueEntry, type EventJournal, StoreConflictError, StoreError, StoreUnavailableError, type ThreadRef } from '../../core/ports.js';
import { storageKey } from '../../core/thread/thread-address.js';

/** Larger files are not journal batches (a batch holds about a second of events). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export class FileEventJournal implements EventJournal {
  private readonly journalDir: string;
  private readonly dueDir: string;

  constructor(stateDir: string) {
    this.journalDir = join(stateDir, 'journal');
    this.dueDir = join(stateDir, 'due');
  }

  async append(thread: ThreadRef, batch: JournalBatch): Promise<void> {
    const folder = this.executionDir(thread, batch.executionId);
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeExclusive(join(folder, batchName(batchKeyOf(batch))), serializeBatch(batch));
    } catch (error) {
      throw storeError(error, 'write the event journal');
    }
  }

  async read(thread: ThreadRef, executionId: string, after?: BatchKey): Promise<JournalBatch[]> {
    const folder = this.executionDir(thread, executionId);
    try {
      const names = (await listNames(folder))
        .map((name) => ({ name, key: parseBatchName(name) }))
        .filter((entry): entry is { name: string; key: BatchKey } => entry.key !== undefined && batchKeyAfter(entry.key, after))
        .sort((a, b) => a.key.epoch - b.key.epoch || a.key.firstSeq - b.key.firstSeq);
      const batches: JournalBatch[] = [];
      for (const { name } of names) {
        const text = await readRegularFile(join(folder, name));
        const batch = text === undefined ? undefined : parseBatch(text, executionId);
        // Half-written by a killed process, or not a batch: a gap the reader sees (canonical.ts).
        if (batch) batches.push(batch);
      }
      return batches;
    } catch (error) {
      throw storeError(error, 'read the event journal');
    }
  }

  async remove(thread: ThreadRef, executionId: string, throughEpoch?: number): Promise<void> {
    const folder = this.executionDir(thread, executionId);
    try {
      if (throughEpoch === undefined) {
        await rm(folder, { recursive: true, force: true });
        return;
      }
      for (const name of await listNames(folder)) {
        const key = parseBatchName(name);
        if (key !== undefined && key.epoch <= throughEpoch) await rm(join(folder, name), { force: true });
      }
      // Gone when nothing newer is left in it; kept (ENOTEMPTY) when a newer run's batches are.
      await rmdir(folder).catch(() => undefined);
    } catch (error) {
      throw storeError(error, 'delete the event journal');
    }
  }

  async schedule(entry: DueEntry, replacing?: DueEntry): Promise<void> {
    try {
      await mkdir(this.dueDir, { recursive: true, mode: 0o700 });
      await writeExclusive(join(this.dueDir, dueName(entry)), JSON.stringify(entry)).catch((error: unknown) => {
        if (!(error instanceof StoreConflictError)) throw error;
      });
    } catch (error) {
      throw storeError(error, 'write the due list');
    }
    if (replacing && dueName(replacing) !== dueName(entry)) await this.unschedule(replacing);
  }

  async unschedule(entry: DueEntry): Promise<void> {
    try {
      await unlink(join(this.dueDir, dueName(entry)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw storeError(error, 'write the due list');
    }
  }

  async due(now: number, limit: number): Promise<DueEntry[]> {
    try {
      const names = (await listNames(this.dueDir)).sort();
      const found: DueEntry[] = [];
      for (const name of names) {
        const parsed = parseDueName(name);
        if (!parsed) continue;
        if (parsed.dueAt > now || found.length >= limit) break;
        const text = await readRegularFile(join(this.dueDir, name));
        const thread = text === undefined ? undefined : dueThreadOf(text);
        if (thread !== undefined) found.push({ ...parsed, ...thread });
        // Unreadable (half-written, or not ours): it could never be handled, and would stay at the head for good.
        else if (text !== undefined) await unlink(join(this.dueDir, name)).catch(() => undefined);
      }
      return found;
    } catch (error) {
      throw storeError(error, 'read the due list');
    }
  }

  private executionDir(thread: ThreadRef, executionId: string): string {
    if (!safeExecutionId(executionId)) throw new StoreUnavailableError('An execution id that cannot name a journal.');
    return join(this.journalDir, storageKey(thread), executionId);
  }
}

async function listNames(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Creates the file or fails with a conflict when the name exists; never follows a link. */
async function writeExclusive(path: string, text: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new StoreConflictError();
    throw error;
  }
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The text of a regular file; undefined when the name is gone or is not a regular file (a FIFO
 * would block the read, a link to a device would never end: docs/architecture.md §3.5).
 */
async function readRegularFile(path: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

function storeError(error: unknown, action: string): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreUnavailableError(`Cannot ${action}: ${(error as Error).message}`, { cause: error });
}
