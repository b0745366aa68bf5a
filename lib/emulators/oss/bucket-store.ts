/**
 * The emulator's buckets: in memory, versioning off (docs/architecture.md §9.3: `x-oss-forbid-overwrite` is only
 * honoured on unversioned buckets, and the OSS driver requires versioning off). Each write replaces
 * the whole object in one synchronous step, so a create-only write is atomic against every other
 * request, as on OSS.
 *
 * ETag: `"` + upper-case hex MD5 + `"` for simple uploads (OSS PutObject documentation and every
 * sample answer, e.g. `"5B3C1A2E053D763E1B002CC607C5A0FE"`). Last-Modified has one-second
 * resolution, as OSS reports it (`…T08:42:32.000Z` in listings).
 */
import { createHash } from 'node:crypto';

export interface StoredObject {
  body: Buffer;
  /** Quoted upper-case MD5 hex. */
  etag: string;
  contentType: string;
  lastModified: Date;
  /** `x-oss-meta-*` headers, lower-case names with the prefix. */
  userMetadata: Record<string, string>;
}

/** OSS lists keys in lexicographic order of their UTF-8 bytes (not of UTF-16 code units). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function quotedMd5(body: Buffer): string {
  return `"${createHash('md5').update(body).digest('hex').toUpperCase()}"`;
}

export class BucketStore {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();

  constructor(bucketNames: readonly string[]) {
    for (const name of bucketNames) this.buckets.set(name, new Map());
  }

  hasBucket(bucket: string): boolean {
    return this.buckets.has(bucket);
  }

  bucketNames(): string[] {
    return [...this.buckets.keys()];
  }

  get(bucket: string, key: string): StoredObject | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  /**
   * Creates or replaces the object; returns what was stored. `modifiedAt` (epoch ms): the clock of
   * the server that wrote it (OssRequest.now), truncated to the second for Last-Modified.
   */
  put(bucket: string, key: string, body: Buffer, contentType: string, userMetadata: Record<string, string>, modifiedAt: number): StoredObject {
    const objects = this.objectsOf(bucket);
    const stored: StoredObject = {
      body: Buffer.from(body),
      etag: quotedMd5(body),
      contentType,
      lastModified: new Date(Math.floor(modifiedAt / 1000) * 1000),
      userMetadata,
    };
    objects.set(key, stored);
    return stored;
  }

  /** True when something was deleted. */
  delete(bucket: string, key: string): boolean {
    return this.objectsOf(bucket).delete(key);
  }

  /** All keys of the bucket in OSS listing order. */
  sortedKeys(bucket: string): string[] {
    return [...this.objectsOf(bucket).keys()].sort(compareUtf8);
  }

  private objectsOf(bucket: string): Map<string, StoredObject> {
    const objects = this.buckets.get(bucket);
    if (objects === undefined) throw new Error(`no bucket ${bucket}`);
    return objects;
  }
}
