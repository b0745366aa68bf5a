/**
 * File driver (docs/architecture.md §3.5): `<state-dir>/threads/<thread-key>.json`, replaced atomically (temp file +
 * rename) inside a short exclusive lock (file-lock.ts), so compare-and-swap holds even when several adapter
 * processes share the directory. Folders 0700, files 0600. Each file holds
 * `{host, pid, nonce, revision, writeId, document}`: the revision is the CAS token, the writeId the
 * writer's nonce, and the leading holder's record lets the staged revision serve as the lock's claim.
 */

import { randomUUID } from 'node:crypto';
import { closeSync, fsync, open as openCallback, writeFile } from 'node:fs';
import { chmod, mkdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onceUntilFailure } from '../../core/once-until-failure.js';
import { StoreConflictError, StoreCorruptError, type StoredDocument, StoreError, StoreUnavailableError, type ThreadRef, type ThreadStore } from '../../core/ports.js';
import { storageKey } from '../../core/thread/thread-address.js';
import { FileEventJournal } from './file-journal.js';
import { type LockOptions, type LockOwner, newLockOwner, withFileLock } from './file-lock.js';
import { removeLeftovers } from './leftovers.js';
import { NotRegularFileError, readRegularFileNow } from './regular-file.js';

const openFile = promisify(openCallback) as (path: string, flags: string, mode?: number) => Promise<number>;
const fsyncFile = promisify(fsync);
const writeText = promisify(writeFile) as (fd: number, text: string) => Promise<void>;

interface Envelope {
  revision: number;
  writeId: string;
  document: unknown;
}

export interface FileStoreOptions {
  /** Age after which any lock is stale, whatever it contains (file-lock.ts); default 10 s, far beyond one locked write. */
  staleLockMs?: number;
  /** How long a save waits for the lock before the store counts as unavailable; default 5 s. */
  lockWaitMs?: number;
}

export class FileThreadStore implements ThreadStore {
  readonly kind = 'file' as const;
  private readonly threadsDir: string;
  /** The event journal beside the thread files (file-journal.ts). */
  readonly journal: FileEventJournal;
  /** The sweep of crashed writers' leftovers this store started with its first save. */
  private sweep: Promise<number> | undefined;

  constructor(
    readonly stateDir: string,
    private readonly options: FileStoreOptions = {},
  ) {
    this.threadsDir = join(stateDir, 'threads');
    this.journal = new FileEventJournal(stateDir);
  }

  pathFor(thread: ThreadRef): string {
    return join(this.threadsDir, `${storageKey(thread)}.json`);
  }

  async load(thread: ThreadRef): Promise<StoredDocument | undefined> {
    const envelope = readEnvelopeNow(this.pathFor(thread));
    return envelope ? { document: envelope.document, revision: envelope.revision } : undefined;
  }

  async save(thread: ThreadRef, document: unknown, expected: number): Promise<number> {
    const path = this.pathFor(thread);
    // The staged revision carries its writer's lock record, so it is also the lock's claim
    // (file-lock.ts): one file is created per save.
    const owner = newLockOwner();
    const revision = expected + 1;
    const envelope: Envelope & LockOwner = { ...owner, revision, writeId: owner.nonce, document };
    let staged: StagedFile | undefined;
    let committed = false;
    try {
      await this.prepare();
      // Opened now, synced after the rename: it makes the rename itself durable.
      const folder = openFolder(this.threadsDir);
      try {
        staged = await stageFile(path, JSON.stringify(envelope));
        const file = staged;
        await withFileLock(`${path}.lock`, file.temp, this.lockOptions, async (lock) => {
          const current = readEnvelopeNow(path)?.revision ?? 0;
          if (current !== expected) throw new StoreConflictError();
          // The staged bytes reach the disk before the rename can: a crash never leaves the thread
          // named by a file whose data was not written (docs/architecture.md §3.5).
          await file.synced;
          // Opened long since; a folder that could not be opened fails the save before the rename.
          const folderFd = await folder;
          await commit(file.temp, path, lock.stillHeld);
          committed = true;
          // The rename reaches the disk before the save returns; the lock is free meanwhile. Both
          // settle before the folder is closed; a failed fsync after the rename fails the save, so
          // the run fails closed rather than announce what may not survive (docs/protocol.md §6.9).
          const [synced] = await Promise.allSettled([syncFolder(folderFd), lock.release()]);
          if (synced.status === 'rejected') throw synced.reason;
        });
        return revision;
      } finally {
        closeQuietly(await folder.catch(() => undefined));
      }
    } catch (error) {
      // A conflict or a corrupt file says more than "cannot write"; an unreadable one gets the write's context.
      if (error instanceof StoreError && error.kind !== 'unavailable') throw error;
      throw new StoreUnavailableError(`cannot write thread state: ${(error as Error).message}`, { cause: error });
    } finally {
      if (staged) {
        // Not closed under a pending fsync (a conflict can come first): the number could be reused.
        await staged.synced.catch(() => undefined);
        closeQuietly(staged.fd);
        // A staged file that never became the thread (conflict, lost lock, failure) is removed.
        if (!committed) await removeQuietly(staged.temp);
      }
    }
  }

  /**
   * Resolves, with how many files went, once the sweep of crashed writers' leftovers (leftovers.ts)
   * that this store's first save started in the background has finished; 0 before any save.
   */
  leftoversSwept(): Promise<number> {
    return this.sweep ?? Promise.resolve(0);
  }

  private get lockOptions(): LockOptions {
    return { staleMs: this.options.staleLockMs ?? 10_000, waitMs: this.options.lockWaitMs ?? 5_000 };
  }

  /**
   * The state folders, made (0700) once, before the first save; then, in the background, the
   * leftovers of writers that crashed before this process started are swept (leftovers.ts).
   */
  private readonly prepare = onceUntilFailure(async () => {
    await mkdir(this.threadsDir, { recursive: true, mode: 0o700 });
    await chmod(this.stateDir, 0o700);
    await chmod(this.threadsDir, 0o700);
    this.sweep = removeLeftovers(this.threadsDir, this.lockOptions.staleMs);
  });
}

/**
 * The stored envelope, read synchronously: a local read of a few kilobytes takes microseconds, less
 * than a round trip through the thread pool, and never waits for the journal as a change to a
 * directory can; under the lock it keeps the lock short (docs/architecture.md §3.5). Anything but a
 * regular file at the path is never read (regular-file.ts): it is that thread's corrupt state.
 */
function readEnvelopeNow(path: string): Envelope | undefined {
  let text: string | undefined;
  try {
    text = readRegularFileNow(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) throw new StoreCorruptError('The thread state is not a regular file.', { cause: error });
    throw new StoreUnavailableError(`cannot read thread state: ${(error as Error).message}`, { cause: error });
  }
  return text === undefined ? undefined : parseEnvelope(text);
}

function parseEnvelope(text: string): Envelope {
  try {
    const envelope = JSON.parse(text) as Envelope;
    if (!Number.isInteger(envelope.revision) || envelope.revision < 1 || typeof envelope.writeId !== 'string') throw new Error('bad envelope');
    return envelope;
  } catch (error) {
    throw new StoreCorruptError('The thread state file is corrupt.', { cause: error });
  }
}

interface StagedFile {
  temp: string;
  fd: number;
  /** Settles when the staged bytes are on the disk; started as soon as they were written. */
  synced: Promise<void>;
}

/**
 * Writes `text` to a new temporary file beside `path` and starts its fsync, which runs while the
 * lock is taken and the stored revision compared (docs/architecture.md §3.5). Raw descriptors: a
 * save closes them itself, at once, whatever happens.
 */
async function stageFile(path: string, text: string): Promise<StagedFile> {
  const temp = `${path}.${randomUUID()}.tmp`;
  const fd = await openFile(temp, 'wx', 0o600);
  try {
    await writeText(fd, text);
  } catch (error) {
    closeQuietly(fd);
    await removeQuietly(temp);
    throw error;
  }
  const synced = fsyncFile(fd);
  synced.catch(() => undefined);
  return { temp, fd, synced };
}

function openFolder(path: string): Promise<number> {
  const folder = openFile(path, 'r');
  folder.catch(() => undefined);
  return folder;
}

function syncFolder(fd: number): Promise<void> {
  return fsyncFile(fd);
}

/** Closing a descriptor changes nothing on the disk and takes microseconds, so it is done at once. */
function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // Already closed or never valid: nothing to release.
  }
}

function removeQuietly(path: string): Promise<void> {
  return unlink(path).catch(() => undefined);
}

/**
 * The rename of the staged file over the thread is the commit. `mayCommit` runs right before it:
 * the lock is checked once more (file-lock.ts: a recovery racing a fresh holder can, in a window
 * of microseconds, leave two writers believing they hold the lock; the second check makes the one
 * that lost the name give up with a conflict instead of overwriting). The caller removes the
 * staged file when this throws.
 */
async function commit(temp: string, path: string, mayCommit: () => boolean): Promise<void> {
  if (!mayCommit()) throw new StoreConflictError('The thread lock was lost before the write; re-read and retry.');
  await rename(temp, path);
}
