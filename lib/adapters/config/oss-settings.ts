/**
 * The OSS driver's settings from the environment (docs/protocol.md §9; the driver itself is
 * lib/adapters/oss-store, which never reads the environment):
 *
 * - IAC_CODE_AGUI_OSS_ENDPOINT is used as given (scheme optional, https assumed) and follows the
 *   adapter's one URL rule (url-policy.ts) with IAC_CODE_AGUI_OSS_ALLOW_INSECURE.
 * - Without an endpoint it is derived from the region: `cn-hangzhou` and `oss-cn-hangzhou` both
 *   mean https://oss-cn-hangzhou.aliyuncs.com, or https://oss-cn-hangzhou-internal.aliyuncs.com with
 *   IAC_CODE_AGUI_OSS_INTERNAL=1 (free, private traffic from FC in the bucket's region).
 * - The region is also read back from an `oss-<region>[-internal].aliyuncs.com` endpoint; V4
 *   signatures need it. Signing is V4 whenever the region is known, else V1, unless
 *   IAC_CODE_AGUI_OSS_SIGNATURE says otherwise.
 * - IP and loopback hosts are addressed path-style (bucket in the path), real OSS virtual-host style;
 *   IAC_CODE_AGUI_OSS_PATH_STYLE=1 forces path-style for a named host that serves buckets in the
 *   path (the emulator reached as host.docker.internal from a `s local start` container).
 * - ALIBABA_CLOUD_ACCESS_KEY_ID / _SECRET / _SECURITY_TOKEN are held as Secrets; they are required
 *   outside Function Compute only, where the role's credentials come with each request instead.
 */
import { isIP } from 'node:net';
import { Secret } from '../../core/secret.js';
import type { OssCredentials } from '../oss-store/index.js';
import { ConfigError } from './config-error.js';
import { bareHostname, checkServiceUrl, isLoopbackHost } from './url-policy.js';
import { type Env, flag, positiveInteger, setting } from './values.js';

export interface OssSettings {
  bucket: string;
  /** scheme://host[:port], as configured or derived from the region. */
  endpoint: string;
  /** Standard region id (cn-hangzhou), when configured or readable from the endpoint. */
  region: string | undefined;
  /** Bucket in the path: IP and loopback endpoints (the local emulator). */
  pathStyle: boolean;
  signature: 'v1' | 'v4';
  prefix: string;
  /** Per OSS request (IAC_CODE_AGUI_OSS_TIMEOUT_MS): a slow OSS fails the request instead of hanging it. */
  timeoutMs: number;
  /** ALIBABA_CLOUD_ACCESS_KEY_* — the fallback when a request carries no FC role credentials. */
  credentials: OssCredentials | undefined;
  /**
   * IAC_CODE_AGUI_OSS_VERIFY_EVERY_SAVE=1: no save is proven by time, each verifies with a listing —
   * while instances of a version before the prune hold may still write the bucket (docs/state-store.md "Upgrading").
   */
  verifyEverySave?: boolean;
}

const BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ALIYUN_ENDPOINT = /^oss-([a-z0-9-]+?)(-internal)?\.aliyuncs\.com$/;

/** `cn-hangzhou` or `oss-cn-hangzhou` → `cn-hangzhou`. */
function standardRegion(raw: string): string {
  const region = raw.trim().toLowerCase().replace(/^oss-/, '');
  if (!REGION.test(region)) throw new ConfigError(`IAC_CODE_AGUI_OSS_REGION is not a region id: "${raw}"`);
  return region;
}

interface OssEndpoint {
  endpoint: string;
  region: string | undefined;
  pathStyle: boolean;
  signature: 'v1' | 'v4';
}

function resolveEndpoint(env: Env): OssEndpoint {
  const configured = setting(env, 'IAC_CODE_AGUI_OSS_ENDPOINT');
  const signature = setting(env, 'IAC_CODE_AGUI_OSS_SIGNATURE');
  if (signature !== undefined && signature !== 'v1' && signature !== 'v4') throw new ConfigError(`IAC_CODE_AGUI_OSS_SIGNATURE must be "v1" or "v4", got "${signature}"`);
  const regionValue = setting(env, 'IAC_CODE_AGUI_OSS_REGION');
  let region = regionValue === undefined ? undefined : standardRegion(regionValue);
  let endpoint: string;
  let pathStyle = false;
  if (configured !== undefined) {
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(configured) ? configured : `https://${configured}`;
    const url = checkServiceUrl(withScheme, {
      variable: 'IAC_CODE_AGUI_OSS_ENDPOINT',
      insecureVariable: 'IAC_CODE_AGUI_OSS_ALLOW_INSECURE',
      allowInsecure: flag(env, 'IAC_CODE_AGUI_OSS_ALLOW_INSECURE'),
    });
    const host = bareHostname(url);
    pathStyle = isLoopbackHost(host) || isIP(host) !== 0 || flag(env, 'IAC_CODE_AGUI_OSS_PATH_STYLE');
    endpoint = `${url.protocol}//${url.host}`;
    region ??= ALIYUN_ENDPOINT.exec(host)?.[1];
  } else {
    if (region === undefined) throw new ConfigError('IAC_CODE_AGUI_OSS_REGION or IAC_CODE_AGUI_OSS_ENDPOINT is required when IAC_CODE_AGUI_STATE_STORE=oss');
    endpoint = `https://oss-${region}${flag(env, 'IAC_CODE_AGUI_OSS_INTERNAL') ? '-internal' : ''}.aliyuncs.com`;
  }
  const signing = signature ?? (region === undefined ? 'v1' : 'v4');
  if (signing === 'v4' && region === undefined) {
    throw new ConfigError('V4 signatures need the bucket region: set IAC_CODE_AGUI_OSS_REGION (or IAC_CODE_AGUI_OSS_SIGNATURE=v1)');
  }
  return { endpoint, region, pathStyle, signature: signing };
}

/** Undefined when neither id nor secret is set; a half-configured credential is a mistake. */
function credentialsFrom(env: Env): OssCredentials | undefined {
  const id = setting(env, 'ALIBABA_CLOUD_ACCESS_KEY_ID');
  const secret = setting(env, 'ALIBABA_CLOUD_ACCESS_KEY_SECRET');
  const token = setting(env, 'ALIBABA_CLOUD_SECURITY_TOKEN');
  if (id === undefined && secret === undefined) return undefined;
  if (id === undefined || secret === undefined) throw new ConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET must be set together');
  return { accessKeyId: new Secret(id), accessKeySecret: new Secret(secret), securityToken: token === undefined ? undefined : new Secret(token) };
}

export function loadOssSettings(env: Env, inFunctionCompute: boolean): OssSettings {
  const bucket = setting(env, 'IAC_CODE_AGUI_OSS_BUCKET');
  if (!bucket) throw new ConfigError('IAC_CODE_AGUI_OSS_BUCKET is required when IAC_CODE_AGUI_STATE_STORE=oss');
  if (!BUCKET.test(bucket)) throw new ConfigError(`IAC_CODE_AGUI_OSS_BUCKET is not an OSS bucket name: "${bucket}"`);
  const endpoint = resolveEndpoint(env);
  const credentials = credentialsFrom(env);
  if (credentials === undefined && !inFunctionCompute) {
    throw new ConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET are required for the OSS store outside Function Compute');
  }
  return {
    bucket,
    ...endpoint,
    prefix: (env['IAC_CODE_AGUI_OSS_PREFIX'] ?? 'agui').replace(/^\/+|\/+$/g, '') || 'agui',
    timeoutMs: positiveInteger(env, 'IAC_CODE_AGUI_OSS_TIMEOUT_MS', 5_000),
    credentials,
    verifyEverySave: flag(env, 'IAC_CODE_AGUI_OSS_VERIFY_EVERY_SAVE'),
  };
}
