/**
 * The OSS emulator (docs/architecture.md §9.3; used by tests and by `npm start` when
 * IAC_CODE_AGUI_STATE_STORE=oss has no endpoint, docs/protocol.md §9.5): a real loopback HTTP server (node:http,
 * nothing else to install) speaking the subset of the OSS REST API the OSS thread-store driver uses
 * — PutObject, GetObject, HeadObject, DeleteObject, DeleteMultipleObjects, ListObjects and
 * ListObjectsV2 — faithfully enough that the real `ali-oss` client cannot tell it from OSS:
 * V1 and V4 signatures are recomputed and checked, STS tokens are required when a credential has
 * one, errors are OSS's XML with OSS's codes and statuses, and `x-oss-forbid-overwrite` is the
 * only atomic write condition (conditional PUT headers are NotImplemented, as on OSS).
 *
 * Tests steer it through `addFault` (errors, latency, dropped connections, lost answers) and
 * inspect it through `counters`, `objectKeys` and `readObject`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenHttp, readBoundedBody } from '../http-server.js';
import type { AuthSettings } from './authenticate.js';
import { BucketStore } from './bucket-store.js';
import { parseDeleteBody } from './delete-multiple.js';
import { dispatch } from './dispatch.js';
import { faultError, OssError, ossErrors } from './errors.js';
import { FaultBook } from './faults.js';
import { classify, OPERATIONS, type OssOperation } from './operations.js';
import { errorReply, newRequestId, type OssReply, writeReply } from './reply.js';
import { type OssRequest, queryValue, resolveTarget } from './request.js';

export interface OssCredential {
  accessKeyId: string;
  accessKeySecret: string;
  /** When set, every request with this AccessKeyId must carry it as `x-oss-security-token` (STS). */
  securityToken?: string;
  /**
   * An STS credential's expiry (epoch ms, the real clock): from then on every request signed with it
   * is refused 403 SecurityTokenExpired, as OSS refuses an expired STS token. Tests may set or move it
   * on the very object they passed in `credentials`.
   */
  expiresAt?: number;
}

export interface OssEmulatorOptions {
  /** Default 127.0.0.1: loopback only. */
  host?: string;
  /** 0 (default) = any free port. */
  port?: number;
  /** Default ['agui-state']. Versioning is off on all of them. */
  buckets?: string[];
  /** Default one: { accessKeyId: 'test-ak', accessKeySecret: 'test-secret' }. */
  credentials?: OssCredential[];
  /** Region V4 signatures must be scoped to; default 'cn-hangzhou' ('oss-cn-hangzhou' is accepted too). */
  region?: string;
  /**
   * The server time it reports — `Date` headers and Last-Modified — in epoch ms; default the real
   * clock. Tests of the OSS driver's prune hold run it ahead or fast (docs/state-store.md "The hold");
   * signatures are still checked against the real clock.
   */
  clock?: () => number;
  /**
   * Per-request clock skew (ms), as if each request were served by one of OSS's many servers whose
   * clocks disagree: added to everything that request stamps — its answer's `Date` and, for a
   * PutObject, the object's Last-Modified. Default none. docs/state-store.md "Consistency
   * assumptions" states the bound the driver is proven for; the adversarial suite
   * (test/oss-store/adversarial) draws skews up to it. `setSkew` replaces it while running.
   */
  skew?: SkewRule;
  /**
   * How a fault's `delayMs` is waited; default a real timer. Tests pass their own to see each delay
   * and end it when they choose — a slow answer ordered against other events, not measured. Closing
   * the emulator ends every delay however it is waited.
   */
  sleep?: (ms: number) => Promise<void>;
}

/** What a skew rule sees of a request: enough to play "which server answers this". */
export interface SkewSubject {
  method: string;
  operation: string;
  /** The object key, or a listing's prefix; '' when neither applies. */
  name: string;
}

export type SkewRule = (subject: SkewSubject) => number;

export interface OssFault {
  /** HTTP method to match (any when unset). */
  method?: string;
  /** Object key prefix to match: the key, a listing's `prefix`, or any key of a multi-delete. */
  keyPrefix?: string;
  /** 'PutObject', 'GetObject', 'HeadObject', 'DeleteObject', 'ListObjects', 'ListObjectsV2', 'DeleteMultipleObjects'. */
  operation?: string;
  /** Answer this error status instead of handling the request, as OSS XML (nothing is applied). */
  status?: number;
  /** The <Code> of that error; default OSS's code for the status (500 InternalError, 503 ServiceUnavailable…). Alone, implies 500. */
  code?: string;
  /** Wait this long first, then go on (normal handling, or the other effects of this fault). */
  delayMs?: number;
  /** Destroy the socket without answering and without applying the request. */
  drop?: boolean;
  /** Apply the request (e.g. store the object), then destroy the socket: an answer lost in transit. */
  dropAfterApply?: boolean;
  /** How many matching requests this fault affects; default 1; Infinity allowed. */
  times?: number;
}

export interface OssEmulator {
  /** 'http://127.0.0.1:PORT' */
  endpoint: string;
  port: number;
  /** Requests per operation name (see OPERATIONS, 'Unsupported' included) plus 'total'. */
  counters: Record<string, number>;
  resetCounters(): void;
  addFault(fault: OssFault): void;
  clearFaults(): void;
  /** Replaces the per-request skew rule (OssEmulatorOptions.skew); undefined: no skew. */
  setSkew(rule: SkewRule | undefined): void;
  objectKeys(bucket?: string): string[];
  readObject(bucket: string, key: string): Buffer | undefined;
  /**
   * Resolves once every request received so far has been handled to its end (answered, refused,
   * dropped) — a delayed one included: a test's wait for a late write to land.
   */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_CREDENTIAL: OssCredential = { accessKeyId: 'test-ak', accessKeySecret: 'test-secret' };
/** Far above anything the driver writes; keeps a runaway test from exhausting memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** What a fault's keyPrefix is matched against (see OssFault.keyPrefix). */
function faultNames(request: OssRequest | undefined, operation: OssOperation): string[] {
  if (request === undefined) return [];
  if (operation === 'ListObjects' || operation === 'ListObjectsV2') return [queryValue(request, 'prefix') ?? ''];
  if (operation === 'DeleteMultipleObjects') {
    try {
      return parseDeleteBody(request.body).keys;
    } catch {
      return [];
    }
  }
  return [request.key];
}

function asOssError(error: unknown): OssError {
  return error instanceof OssError ? error : new OssError(500, 'InternalError', `We encountered an internal error: ${(error as Error).message}`);
}

export async function startOssEmulator(options: OssEmulatorOptions = {}): Promise<OssEmulator> {
  const host = options.host ?? '127.0.0.1';
  const bucketNames = options.buckets ?? ['agui-state'];
  const buckets = new Set(bucketNames);
  const clock = options.clock ?? Date.now;
  const store = new BucketStore(bucketNames);
  let skewRule = options.skew;
  const auth: AuthSettings = {
    credentials: options.credentials ?? [DEFAULT_CREDENTIAL],
    // ali-oss signs with the standard region id, stripping a leading "oss-" (getStandardRegion).
    region: (options.region ?? 'cn-hangzhou').replace(/^oss-/, ''),
  };
  const faults = new FaultBook();
  const counters: Record<string, number> = {};
  const resetCounters = (): void => {
    for (const name of [...OPERATIONS, 'total']) counters[name] = 0;
  };
  resetCounters();
  const closing = new AbortController();
  const closed = new Promise<void>((resolve) => closing.signal.addEventListener('abort', () => resolve(), { once: true }));
  // The default timer is cleared on close, so a long delay keeps no closed emulator's process alive.
  const wait = options.sleep ?? ((ms: number) => sleep(ms, undefined, { signal: closing.signal }).catch(() => undefined));
  let handling = 0;
  const idleWaiters: Array<() => void> = [];

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    handling += 1;
    try {
      await handle(req, res);
    } finally {
      handling -= 1;
      if (handling === 0) {
        for (const resolve of idleWaiters.splice(0)) resolve();
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newRequestId();
    const method = (req.method ?? 'GET').toUpperCase();
    const hostId = req.headers.host ?? host;
    let body: Buffer;
    try {
      body = await readBoundedBody(req, MAX_BODY_BYTES, () => ossErrors.entityTooLarge());
    } catch (error) {
      if (error instanceof OssError) writeReply(res, errorReply(error, method, requestId, hostId), method, requestId, clock());
      else req.socket.destroy();
      return;
    }

    let request: OssRequest | undefined;
    let operation: OssOperation = 'Unsupported';
    let routingError: OssError | undefined;
    // This request's server clock: fixed skew, moving time (a delayed answer is stamped later).
    let skewMs = 0;
    const now = (): number => clock() + skewMs;
    try {
      const target = resolveTarget(hostId, req.url ?? '/', buckets);
      operation = classify(method, target);
      request = { method, headers: req.headers, bucket: target.bucket, key: target.key, query: target.query, body, host: hostId, requestId, now };
    } catch (error) {
      routingError = asOssError(error);
    }
    if (skewRule !== undefined) {
      const name = request === undefined ? '' : operation === 'ListObjects' || operation === 'ListObjectsV2' ? (queryValue(request, 'prefix') ?? '') : request.key;
      skewMs = skewRule({ method, operation, name });
    }
    counters[operation] = (counters[operation] ?? 0) + 1;
    counters.total = (counters.total ?? 0) + 1;

    const fault = faults.take({ method, operation, names: faultNames(request, operation) });
    if (fault?.delayMs !== undefined && fault.delayMs > 0) {
      const ended = await Promise.race([wait(fault.delayMs).then(() => 'waited' as const), closed.then(() => 'closing' as const)]);
      if (ended === 'closing') {
        req.socket.destroy();
        return;
      }
    }
    if (fault?.drop) {
      req.socket.destroy();
      return;
    }

    let reply: OssReply;
    try {
      if (fault !== undefined && (fault.status !== undefined || fault.code !== undefined)) throw faultError(fault.status ?? 500, fault.code);
      if (routingError !== undefined || request === undefined) throw routingError ?? ossErrors.invalidArgument('Unroutable request.');
      reply = dispatch(store, auth, request, operation);
    } catch (error) {
      reply = errorReply(asOssError(error), method, requestId, hostId);
    }
    if (fault?.dropAfterApply) {
      req.socket.destroy();
      return;
    }
    writeReply(res, reply, method, requestId, now());
  }

  const server = await listenHttp(serve, host, options.port ?? 0);
  const { port } = server;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    endpoint: `http://${urlHost}:${port}`,
    port,
    counters,
    resetCounters,
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    setSkew: (rule) => {
      skewRule = rule;
    },
    objectKeys: (bucket = bucketNames[0] ?? '') => {
      if (!store.hasBucket(bucket)) throw new Error(`The OSS emulator has no bucket ${bucket}`);
      return store.sortedKeys(bucket);
    },
    readObject: (bucket, key) => {
      const object = store.hasBucket(bucket) ? store.get(bucket, key) : undefined;
      return object === undefined ? undefined : Buffer.from(object.body);
    },
    idle: () => (handling === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    close: async () => {
      closing.abort();
      await server.close();
    },
  };
}
