/**
 * Where the OSS driver connects and how it signs (SPEC §6 "IAC_CODE_AGUI_OSS_*"):
 *
 * - IAC_CODE_AGUI_OSS_ENDPOINT is used as given (scheme optional, https assumed). Plain http is
 *   accepted for loopback and IP-literal hosts (the local emulator) or with
 *   IAC_CODE_AGUI_OSS_ALLOW_INSECURE=1 — over http an STS token travels in clear text.
 * - Without an endpoint it is derived from the region: `cn-hangzhou` and `oss-cn-hangzhou` both
 *   mean https://oss-cn-hangzhou.aliyuncs.com, or https://oss-cn-hangzhou-internal.aliyuncs.com with
 *   IAC_CODE_AGUI_OSS_INTERNAL=1 (free, private traffic from FC in the bucket's region).
 * - The region is also read back from an `oss-<region>[-internal].aliyuncs.com` endpoint; V4
 *   signatures need it. Signing is V4 whenever the region is known, else V1, unless
 *   IAC_CODE_AGUI_OSS_SIGNATURE says otherwise.
 * - IP and loopback hosts are addressed path-style (bucket in the path), real OSS virtual-host style.
 */
import { isIP } from 'node:net';

export interface OssEndpoint {
  /** scheme://host[:port] */
  endpoint: string;
  /** Standard region id (cn-hangzhou), when known. */
  region: string | undefined;
  pathStyle: boolean;
  signature: 'v1' | 'v4';
}

export interface OssEndpointInput {
  endpoint: string | undefined;
  region: string | undefined;
  internal: boolean;
  allowInsecure: boolean;
  signature: 'v1' | 'v4' | undefined;
}

const REGION = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ALIYUN_ENDPOINT = /^oss-([a-z0-9-]+?)(-internal)?\.aliyuncs\.com$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** `cn-hangzhou` or `oss-cn-hangzhou` → `cn-hangzhou`. Throws on anything else. */
export function standardRegion(raw: string): string {
  const region = raw.trim().toLowerCase().replace(/^oss-/, '');
  if (!REGION.test(region)) throw new Error(`IAC_CODE_AGUI_OSS_REGION is not a region id: "${raw}"`);
  return region;
}

function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export function resolveOssEndpoint(input: OssEndpointInput): OssEndpoint {
  let region = input.region === undefined ? undefined : standardRegion(input.region);
  let endpoint: string;
  let pathStyle = false;
  if (input.endpoint !== undefined) {
    const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(input.endpoint) ? input.endpoint : `https://${input.endpoint}`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`IAC_CODE_AGUI_OSS_ENDPOINT is not a URL: "${input.endpoint}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('IAC_CODE_AGUI_OSS_ENDPOINT must be http or https');
    const host = hostnameOf(url);
    const local = LOOPBACK.has(host) || isIP(host) !== 0;
    if (url.protocol === 'http:' && !local && !input.allowInsecure) {
      throw new Error('IAC_CODE_AGUI_OSS_ENDPOINT must use https for a remote host (set IAC_CODE_AGUI_OSS_ALLOW_INSECURE=1 to allow http)');
    }
    pathStyle = local;
    endpoint = `${url.protocol}//${url.host}`;
    region ??= ALIYUN_ENDPOINT.exec(host)?.[1];
  } else {
    if (region === undefined) throw new Error('IAC_CODE_AGUI_OSS_REGION or IAC_CODE_AGUI_OSS_ENDPOINT is required when IAC_CODE_AGUI_STATE_STORE=oss');
    endpoint = `https://oss-${region}${input.internal ? '-internal' : ''}.aliyuncs.com`;
  }
  const signature = input.signature ?? (region === undefined ? 'v1' : 'v4');
  if (signature === 'v4' && region === undefined) {
    throw new Error('V4 signatures need the bucket region: set IAC_CODE_AGUI_OSS_REGION (or IAC_CODE_AGUI_OSS_SIGNATURE=v1)');
  }
  return { endpoint, region, pathStyle, signature };
}
