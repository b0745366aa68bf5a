/**
 * The five OSS requests the driver makes, over the real `ali-oss` client (docs/architecture.md §4.2). This is the only file that imports ali-oss; every failure leaves it as a sanitized
 * OssRequestError (lib/adapters/oss-errors.ts). No retries here: the store decides what may be
 * retried (a create may not be blindly — docs/state-store.md "Lost answers").
 *
 * ali-oss facts this relies on (checked against the emulator, test/oss-emulator):
 * - the only write condition used is `x-oss-forbid-overwrite: true` (OSS answers If-Match /
 *   If-None-Match on PUT with NotImplemented);
 * - V4 signing breaks on `undefined` or '' query values, so optional list parameters are left out;
 * - `sldEnable` (path-style, bucket in the path) is read by ali-oss but missing from its types;
 * - ali-oss does not retry by default (retryMax 0) and its default timeout is 60 s — too long for a
 *   request that holds an HTTP caller, so the configured timeout is always passed.
 */
import { createHash } from 'node:crypto';
import OSS from 'ali-oss';
import { classifyOssFailure, type OssOperationName } from './errors.js';

export interface ListPage {
  keys: string[];
  /** Set when the listing was truncated. */
  nextContinuationToken: string | undefined;
  /** Each key's Last-Modified (epoch ms), in the order of `keys`, when OSS gave it. */
  lastModified?: Array<number | undefined>;
  /** Each key's ETag as OSS lists it (the quoted upper-case MD5 of a simple upload), in the order of `keys`. */
  etags?: Array<string | undefined>;
  /** The OSS server's time of the answer (its Date header, epoch ms), when known. */
  serverTime?: number | undefined;
}

export interface ListOptions {
  maxKeys: number;
  startAfter?: string;
  continuationToken?: string;
}

/** What the store needs from OSS. Errors are OssRequestError. */
export interface OssObjects {
  /**
   * PutObject with `x-oss-forbid-overwrite: true` and Content-MD5. Resolves with the OSS server's
   * time of the answer (its Date header, epoch ms) as a number when known; anything else — a test's
   * wrapper resolving with nothing — means not known.
   */
  create(key: string, body: Buffer): Promise<unknown>;
  /** GetObject; undefined on 404 NoSuchKey. */
  read(key: string): Promise<Buffer | undefined>;
  /** ListObjectsV2 under `prefix`, in OSS's lexicographic order. */
  list(prefix: string, options: ListOptions): Promise<ListPage>;
  /** DeleteObject (204 whether or not it existed). */
  remove(key: string): Promise<void>;
  /** DeleteMultipleObjects, quiet mode, at most 1000 keys. */
  removeMany(keys: string[]): Promise<void>;
}

export interface OssClientSettings {
  endpoint: string;
  bucket: string;
  /** Standard region id (cn-hangzhou); required for V4 signatures. */
  region: string | undefined;
  signature: 'v1' | 'v4';
  timeoutMs: number;
  /** Bucket in the path (IP and loopback endpoints, e.g. the emulator). */
  pathStyle: boolean;
}

export interface OssAccessKey {
  accessKeyId: string;
  accessKeySecret: string;
  securityToken: string | undefined;
}

/** ali-oss reads `sldEnable` and `refreshSTSTokenInterval`, which @types/ali-oss 6.23.3 does not declare. */
type ClientOptions = OSS.Options & { sldEnable?: boolean; refreshSTSTokenInterval?: number };

export class AliOssObjects implements OssObjects {
  private readonly client: OSS;

  constructor(settings: OssClientSettings, key: OssAccessKey) {
    const options: ClientOptions = {
      endpoint: settings.endpoint,
      bucket: settings.bucket,
      accessKeyId: key.accessKeyId,
      accessKeySecret: key.accessKeySecret,
      // ali-oss derives the V4 scope from this (stripping "oss-") and, for IP endpoints, the Host header.
      region: `oss-${settings.region ?? 'cn-hangzhou'}`,
      authorizationV4: settings.signature === 'v4',
      sldEnable: settings.pathStyle,
      secure: settings.endpoint.startsWith('https:'),
      timeout: settings.timeoutMs,
    };
    if (key.securityToken !== undefined) {
      options.stsToken = key.securityToken;
      // The token arrives with each request (FC) and is never refreshed by the client; naming an
      // interval only silences ali-oss's console warning about a missing refresher.
      options.refreshSTSTokenInterval = 3_600_000;
    }
    this.client = new OSS(options);
  }

  async create(key: string, body: Buffer): Promise<number | undefined> {
    const contentMd5 = createHash('md5').update(body).digest('base64');
    const result = await call('PutObject', () =>
      this.client.put(key, body, { mime: 'application/json', headers: { 'x-oss-forbid-overwrite': 'true', 'Content-MD5': contentMd5 } }),
    );
    return serverTime(result.res);
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      const result = await this.client.get(key);
      return Buffer.from(result.content as Buffer);
    } catch (error) {
      const failure = classifyOssFailure('GetObject', error);
      if (failure.kind === 'notFound') return undefined;
      throw failure;
    }
  }

  async list(prefix: string, options: ListOptions): Promise<ListPage> {
    const query: OSS.ListV2ObjectsQuery = { prefix, 'max-keys': String(options.maxKeys) };
    if (options.startAfter) query['start-after'] = options.startAfter;
    if (options.continuationToken) query['continuation-token'] = options.continuationToken;
    const result = await call('ListObjectsV2', () => this.client.listV2(query, {}));
    const objects = result.objects ?? [];
    return {
      keys: objects.map((object) => object.name),
      nextContinuationToken: result.isTruncated && result.nextContinuationToken ? result.nextContinuationToken : undefined,
      lastModified: objects.map((object) => httpTime(object.lastModified)),
      etags: objects.map((object) => (typeof object.etag === 'string' ? object.etag : undefined)),
      serverTime: serverTime(result.res),
    };
  }

  async remove(key: string): Promise<void> {
    await call('DeleteObject', () => this.client.delete(key));
  }

  async removeMany(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await call('DeleteMultipleObjects', () => this.client.deleteMulti(keys, { quiet: true }));
  }
}

/** An HTTP or ISO date as epoch ms; undefined when absent or unreadable. */
function httpTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/** The Date header of an ali-oss answer: the OSS server's clock, the only clock the hold relies on (hold.ts). */
function serverTime(res: unknown): number | undefined {
  const headers = (res as { headers?: Record<string, unknown> } | undefined)?.headers;
  return httpTime(headers?.['date']);
}

async function call<T>(operation: OssOperationName, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw classifyOssFailure(operation, error);
  }
}
