/**
 * Configuration from the environment (SPEC §6), parsed once at start-up. A bad value fails fast
 * with one line naming the variable, never at the first request.
 */
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { z } from 'zod';
import type { Language } from '../core/i18n/catalogue.js';
import { normaliseLanguage } from '../core/i18n/language.js';
import { type Secret, secretFrom } from '../core/secret.js';
import { credentialsFromEnv, type OssCredentials, type OssEndpoint, resolveOssEndpoint } from './oss-store/index.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The OSS driver's settings (SPEC §6; lib/adapters/oss-store/endpoint.ts for endpoint, region and signing). */
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
}

export interface Config {
  host: string;
  port: number;
  /** Set inside Function Compute: bind 0.0.0.0 on this port (SPEC §6). */
  inFunctionCompute: boolean;
  a2aUrl: string | undefined;
  a2aToken: Secret | undefined;
  authToken: Secret | undefined;
  allowedRoots: string[];
  store: 'file' | 'oss';
  stateDir: string;
  oss: OssSettings | undefined;
  leaseTtlMs: number;
  leaseRenewMs: number;
  heartbeatMs: number;
  defaultLanguage: Language;
  /** IAC_CODE_AGUI_CONSOLE=1 serves the web console at /console (SPEC §2, §7). */
  console: boolean;
}

type Env = Record<string, string | undefined>;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

const positiveInt = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value === '') return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed <= 0) {
        context.addIssue({ code: 'custom', message: `${name} must be a positive integer, got "${value}"` });
        return z.NEVER;
      }
      return parsed;
    });

function check<T>(schema: z.ZodType<T>, value: string | undefined): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ConfigError(parsed.error.issues[0]?.message ?? 'invalid configuration');
  return parsed.data;
}

/** A remote kernel must be https unless IAC_CODE_AGUI_A2A_ALLOW_INSECURE=1 (SPEC §6). */
export function checkKernelUrl(raw: string, allowInsecure: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`IAC_CODE_AGUI_A2A_URL is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('IAC_CODE_AGUI_A2A_URL must be http or https');
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname) && !allowInsecure) {
    throw new ConfigError('IAC_CODE_AGUI_A2A_URL must use https for a non-loopback kernel (set IAC_CODE_AGUI_A2A_ALLOW_INSECURE=1 to allow http)');
  }
  return url.toString();
}

/** `1` on, `0` or unset off; anything else is a mistake worth stopping for. */
function flag(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new ConfigError(`${name} must be "1" or "0", got "${value}"`);
}

function defaultLanguageFrom(env: Env): Language {
  for (const name of ['LANGUAGE', 'LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const found = normaliseLanguage(env[name]?.split(':')[0]);
    if (found) return found;
  }
  return 'en';
}

const BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

function loadOssSettings(env: Env, inFunctionCompute: boolean): OssSettings {
  const bucket = env['IAC_CODE_AGUI_OSS_BUCKET'];
  if (!bucket) throw new ConfigError('IAC_CODE_AGUI_OSS_BUCKET is required when IAC_CODE_AGUI_STATE_STORE=oss');
  if (!BUCKET.test(bucket)) throw new ConfigError(`IAC_CODE_AGUI_OSS_BUCKET is not an OSS bucket name: "${bucket}"`);
  const signature = env['IAC_CODE_AGUI_OSS_SIGNATURE'] || undefined;
  if (signature !== undefined && signature !== 'v1' && signature !== 'v4') throw new ConfigError(`IAC_CODE_AGUI_OSS_SIGNATURE must be "v1" or "v4", got "${signature}"`);
  let endpoint: OssEndpoint;
  let credentials: OssCredentials | undefined;
  try {
    endpoint = resolveOssEndpoint({
      endpoint: env['IAC_CODE_AGUI_OSS_ENDPOINT'] || undefined,
      region: env['IAC_CODE_AGUI_OSS_REGION'] || undefined,
      internal: env['IAC_CODE_AGUI_OSS_INTERNAL'] === '1',
      allowInsecure: env['IAC_CODE_AGUI_OSS_ALLOW_INSECURE'] === '1',
      signature,
    });
    credentials = credentialsFromEnv(env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  // In FC the role's credentials come with each request; anywhere else they must be configured.
  if (credentials === undefined && !inFunctionCompute) {
    throw new ConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET are required for the OSS store outside Function Compute');
  }
  return {
    bucket,
    ...endpoint,
    prefix: (env['IAC_CODE_AGUI_OSS_PREFIX'] ?? 'agui').replace(/^\/+|\/+$/g, '') || 'agui',
    timeoutMs: check(positiveInt('IAC_CODE_AGUI_OSS_TIMEOUT_MS', 5_000), env['IAC_CODE_AGUI_OSS_TIMEOUT_MS']),
    credentials,
  };
}

export function loadConfig(env: Env = process.env): Config {
  const inFunctionCompute = env['FC_SERVER_PORT'] !== undefined && env['FC_SERVER_PORT'] !== '';
  const port = inFunctionCompute ? check(positiveInt('FC_SERVER_PORT', 9000), env['FC_SERVER_PORT']) : check(positiveInt('IAC_CODE_AGUI_PORT', 8000), env['IAC_CODE_AGUI_PORT']);
  const store = env['IAC_CODE_AGUI_STATE_STORE'] || 'file';
  if (store !== 'file' && store !== 'oss') throw new ConfigError(`IAC_CODE_AGUI_STATE_STORE must be "file" or "oss", got "${store}"`);
  const a2aUrl = env['IAC_CODE_AGUI_A2A_URL'] ? checkKernelUrl(env['IAC_CODE_AGUI_A2A_URL'], env['IAC_CODE_AGUI_A2A_ALLOW_INSECURE'] === '1') : undefined;
  const leaseTtlMs = check(positiveInt('IAC_CODE_AGUI_LEASE_TTL_MS', 30_000), env['IAC_CODE_AGUI_LEASE_TTL_MS']);
  const leaseRenewMs = check(positiveInt('IAC_CODE_AGUI_LEASE_RENEW_MS', 10_000), env['IAC_CODE_AGUI_LEASE_RENEW_MS']);
  if (leaseRenewMs >= leaseTtlMs) throw new ConfigError('IAC_CODE_AGUI_LEASE_RENEW_MS must be shorter than IAC_CODE_AGUI_LEASE_TTL_MS');
  const configDir = env['IAC_CODE_CONFIG_DIR'] || join(homedir(), '.iac-code');

  const oss = store === 'oss' ? loadOssSettings(env, inFunctionCompute) : undefined;

  return {
    host: inFunctionCompute ? '0.0.0.0' : env['IAC_CODE_AGUI_HOST'] || '127.0.0.1',
    port,
    inFunctionCompute,
    a2aUrl,
    a2aToken: secretFrom(env['IAC_CODE_AGUI_A2A_TOKEN']),
    authToken: secretFrom(env['IAC_CODE_AGUI_AUTH_TOKEN']),
    allowedRoots: (env['IAC_CODE_AGUI_ALLOWED_CWDS'] ?? '').split(delimiter).filter((root) => root.length > 0),
    store,
    stateDir: env['IAC_CODE_AGUI_STATE_DIR'] || join(configDir, 'agui'),
    oss,
    leaseTtlMs,
    leaseRenewMs,
    heartbeatMs: check(positiveInt('IAC_CODE_AGUI_HEARTBEAT_MS', 15_000), env['IAC_CODE_AGUI_HEARTBEAT_MS']),
    defaultLanguage: defaultLanguageFrom(env),
    console: flag('IAC_CODE_AGUI_CONSOLE', env['IAC_CODE_AGUI_CONSOLE']),
  };
}
