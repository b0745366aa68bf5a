/**
 * One received OSS request, parsed once: which bucket and key it addresses, its query, headers and
 * body. Everything downstream (signatures, operations, faults) reads this, never node:http.
 *
 * Addressing (docs/architecture.md §9.3): path-style `/<bucket>/<key>` is the norm.
 * Virtual-host style (`Host: <bucket>.<anything>`, path = key) is recognised too. ali-oss 6.23 has
 * a quirk that makes the two look alike: given an IP endpoint it always sends
 * `Host: <bucket>.<region>.aliyuncs.com`, and with `sldEnable: true` it *also* puts the bucket in
 * the path (lib/common/utils/createRequest.js, lib/common/client/getReqUrl.js). So a Host label
 * that names a bucket means virtual-host style only when the path does not start with that same
 * bucket. (Trade-off: a virtual-host request for a key that itself starts with `<bucket>/` is read
 * path-style; no client of this emulator does that.)
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { ossErrors } from './errors.js';

export interface QueryParam {
  /** Decoded name and value; `value` is '' for a bare `?delete` or `?delete=`. */
  name: string;
  value: string;
}

export interface OssRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Lower-case header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** Undefined for the service root (`GET /`, ListBuckets). */
  bucket: string | undefined;
  /** Decoded object key; '' for bucket-level requests. */
  key: string;
  /** Query parameters in received order. */
  query: QueryParam[];
  body: Buffer;
  /** Echoed as <HostId> in errors (OSS: "the same as the Host the request used"). */
  host: string;
  requestId: string;
  /**
   * The clock of the OSS server that serves this request (epoch ms): the emulator's clock plus this
   * request's skew (OssEmulatorOptions.skew). It stamps the answer's `Date` and, for a write, the
   * object's Last-Modified.
   */
  now: () => number;
}

export function header(request: OssRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export function queryValue(request: Pick<OssRequest, 'query'>, name: string): string | undefined {
  return request.query.find((param) => param.name === name)?.value;
}

export function hasQuery(request: Pick<OssRequest, 'query'>, name: string): boolean {
  return request.query.some((param) => param.name === name);
}

/** Form-style decoding as OSS does it: '+' is a space, then percent-decoding. */
function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw ossErrors.invalidArgument('The request URI is not validly encoded.');
  }
}

export function parseQuery(rawQuery: string): QueryParam[] {
  if (rawQuery === '') return [];
  return rawQuery
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 ? { name: decodeComponent(pair), value: '' } : { name: decodeComponent(pair.slice(0, eq)), value: decodeComponent(pair.slice(eq + 1)) };
    });
}

function decodePath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    throw ossErrors.invalidArgument('The request URI is not validly encoded.');
  }
}

export interface Target {
  bucket: string | undefined;
  key: string;
  query: QueryParam[];
}

/** Resolves bucket and key from the Host header and the raw request target. */
export function resolveTarget(hostHeader: string, rawUrl: string, buckets: ReadonlySet<string>): Target {
  const questionMark = rawUrl.indexOf('?');
  const rawPath = questionMark === -1 ? rawUrl : rawUrl.slice(0, questionMark);
  const query = parseQuery(questionMark === -1 ? '' : rawUrl.slice(questionMark + 1));
  // The key keeps everything after the bucket segment, including any further slashes; OSS keys
  // are not paths, so the path is decoded as a whole and never normalised.
  const path = decodePath(rawPath).replace(/^\//, '');
  const slash = path.indexOf('/');
  const firstSegment = slash === -1 ? path : path.slice(0, slash);

  const hostname = hostHeader
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  const label = hostname.split('.')[0] ?? '';
  const virtualHost = isIP(hostname) === 0 && hostname.includes('.') && buckets.has(label) && firstSegment !== label;
  if (virtualHost) return { bucket: label, key: path, query };
  if (path === '') return { bucket: undefined, key: '', query };
  return { bucket: firstSegment, key: slash === -1 ? '' : path.slice(slash + 1), query };
}
