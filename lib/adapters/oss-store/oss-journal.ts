/**
 * The event journal on OSS (docs/state-store.md "The event journal"):
 *
 *   <prefix>/journal/<thread-key>/<executionId>/<epoch>-<firstSeq>.json   one batch each
 *   <prefix>/due/<dueAt>~<kind>~<executionId>.json                        {threadId, …}
 *
 * Every batch is created with `x-oss-forbid-overwrite` (a second writer of one key meets a 409, never
 * a replacement) and listed in key order, which is the order readers need; a tailing reader lists
 * only after the last batch it has. A create whose answer was lost is read back: our bytes → it
 * landed. Reads, listings and deletes retry transient failures (retry.ts), as the thread store's do.
 */
import { type JournalBatch, parseBatch, serializeBatch } from '../../core/journal/batch.js';
import { batchKeyAfter, batchKeyOf, batchName, dueName, dueThreadOf, parseBatchName, parseDueName, safeExecutionId } from '../../core/journal/journal-names.js';
import { type BatchKey, type DueEntry, type EventJournal, StoreConflictError, StoreError, StoreUnavailableError, type ThreadRef } from '../../core/ports.js';
import { storageKey } from '../../core/thread/thread-address.js';
import { OssRequestError } from './errors.js';
import type { OssObjects } from './objects.js';
import { type RetryPolicy, withRetries } from './retry.js';

const PAGE = 1000;
/** Parallel GETs when a reader catches up on many batches. */
const READ_CONCURRENCY = 8;

export class OssEventJournal implements EventJournal {
  constructor(
    private readonly objects: OssObjects,
    private readonly prefix: string,
    private readonly retry: RetryPolicy,
  ) {}

  async append(thread: ThreadRef, batch: JournalBatch): Promise<void> {
    const key = this.executionPrefix(thread, batch.executionId) + batchName(batchKeyOf(batch));
    await this.createOnce(key, Buffer.from(serializeBatch(batch), 'utf8'), 'write the event journal');
  }

  async read(thread: ThreadRef, executionId: string, after?: BatchKey): Promise<JournalBatch[]> {
    const prefix = this.executionPrefix(thread, executionId);
    try {
      const keys = (await this.listAll(prefix, after ? prefix + batchName(after) : undefined)).filter((key) => {
        const parsed = parseBatchName(key.slice(prefix.length));
        return parsed !== undefined && batchKeyAfter(parsed, after);
      });
      const bodies = await mapLimited(keys, READ_CONCURRENCY, (key) => withRetries(this.retry, () => this.objects.read(key)));
      // A batch deleted meanwhile (the journal expired) or unreadable is a gap the reader sees (canonical.ts).
      return bodies.flatMap((body) => {
        const batch = body === undefined ? undefined : parseBatch(body.toString('utf8'), executionId);
        return batch ? [batch] : [];
      });
    } catch (error) {
      throw storeError(error, 'read the event journal');
    }
  }

  async remove(thread: ThreadRef, executionId: string, throughEpoch?: number): Promise<void> {
    const prefix = this.executionPrefix(thread, executionId);
    try {
      const keys = (await this.listAll(prefix, undefined)).filter((key) => {
        if (throughEpoch === undefined) return true;
        const parsed = parseBatchName(key.slice(prefix.length));
        return parsed !== undefined && parsed.epoch <= throughEpoch;
      });
      for (let start = 0; start < keys.length; start += PAGE) {
        const batch = keys.slice(start, start + PAGE);
        await withRetries(this.retry, () => this.objects.removeMany(batch));
      }
    } catch (error) {
      throw storeError(error, 'delete the event journal');
    }
  }

  async schedule(entry: DueEntry, replacing?: DueEntry): Promise<void> {
    const key = `${this.prefix}/due/${dueName(entry)}`;
    try {
      await this.createOnce(key, Buffer.from(JSON.stringify(entry), 'utf8'), 'write the due list');
    } catch (error) {
      // The same entry already there is the same entry.
      if (!(error instanceof StoreConflictError)) throw error;
    }
    if (replacing && dueName(replacing) !== dueName(entry)) await this.unschedule(replacing);
  }

  async unschedule(entry: DueEntry): Promise<void> {
    try {
      await withRetries(this.retry, () => this.objects.remove(`${this.prefix}/due/${dueName(entry)}`));
    } catch (error) {
      throw storeError(error, 'write the due list');
    }
  }

  async due(now: number, limit: number): Promise<DueEntry[]> {
    const prefix = `${this.prefix}/due/`;
    try {
      const page = await withRetries(this.retry, () => this.objects.list(prefix, { maxKeys: Math.min(PAGE, Math.max(1, limit)) }));
      const found: DueEntry[] = [];
      for (const key of page.keys) {
        const parsed = parseDueName(key.slice(prefix.length));
        if (!parsed) continue;
        if (parsed.dueAt > now) break;
        const body = await withRetries(this.retry, () => this.objects.read(key));
        const thread = body === undefined ? undefined : dueThreadOf(body.toString('utf8'));
        if (thread !== undefined) found.push({ ...parsed, ...thread });
        // Unreadable: it could never be handled, and would stay at the head of the list for good.
        else if (body !== undefined) await withRetries(this.retry, () => this.objects.removeMany([key])).catch(() => undefined);
      }
      return found;
    } catch (error) {
      throw storeError(error, 'read the due list');
    }
  }

  private executionPrefix(thread: ThreadRef, executionId: string): string {
    if (!safeExecutionId(executionId)) throw new StoreUnavailableError('An execution id that cannot name a journal.');
    return `${this.prefix}/journal/${storageKey(thread)}/${executionId}/`;
  }

  private async listAll(prefix: string, startAfter: string | undefined): Promise<string[]> {
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const token = continuationToken;
      const options = token !== undefined ? { maxKeys: PAGE, continuationToken: token } : startAfter !== undefined ? { maxKeys: PAGE, startAfter } : { maxKeys: PAGE };
      const page = await withRetries(this.retry, () => this.objects.list(prefix, options));
      keys.push(...page.keys);
      continuationToken = page.nextContinuationToken;
    } while (continuationToken !== undefined);
    return keys;
  }

  /** Creates an object exactly once; an answer lost in transit is settled by reading the object back. */
  private async createOnce(key: string, body: Buffer, action: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.objects.create(key, body);
        return;
      } catch (error) {
        if (!(error instanceof OssRequestError)) throw storeError(error, action);
        if (error.kind === 'exists' && attempt === 1) throw new StoreConflictError();
        if (error.kind !== 'transient' && error.kind !== 'exists') throw storeError(error, action);
        const landed = await this.objects.read(key).catch(() => undefined);
        if (landed?.equals(body)) return;
        if (landed !== undefined) throw new StoreConflictError();
        if (attempt >= this.retry.attempts) throw storeError(error, action);
      }
    }
  }
}

async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await map(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function storeError(error: unknown, action: string): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreUnavailableError(`Cannot ${action}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
