/**
 * Configuration from the environment (docs/protocol.md §9), parsed once at start-up. This module
 * (with its parts in ./config/) is the only place that reads the adapter's environment; a bad value
 * fails fast with one ConfigError naming the variable, never at the first request.
 */
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Language } from '../core/i18n/catalogue.js';
import { normaliseLanguage } from '../core/i18n/language.js';
import { type Secret, secretFrom } from '../core/secret.js';
import { DEFAULT_MAX_ACTIVE_RUNS } from '../http/live-stream-gate.js';
import { DEFAULT_BODY_TIMEOUT_MS } from '../http/read-body.js';
import { ConfigError } from './config/config-error.js';
import { corsOriginsFrom } from './config/cors-origins.js';
import { functionComputePort } from './config/function-compute.js';
import { type OidcSettings, oidcSettingsFrom } from './config/oidc-settings.js';
import { loadOssSettings, type OssSettings } from './config/oss-settings.js';
import { checkServiceUrl } from './config/url-policy.js';
import { type Env, flag, nonNegativeInteger, positiveInteger, setting } from './config/values.js';
import { isLogLevel, type LogLevel } from './logger.js';
import type { ShutdownPolicy } from './node-server/graceful-shutdown.js';

export { ConfigError } from './config/config-error.js';
export { instanceLogFields } from './config/function-compute.js';
export { envWithEmulators, type LocalEmulatorPlan, localEmulatorPlan, type StartedEmulators } from './config/local-emulators.js';
export type { OidcSettings } from './config/oidc-settings.js';
export type { OssSettings } from './config/oss-settings.js';
export type { Env } from './config/values.js';

export interface Config {
  host: string;
  port: number;
  a2aUrl: string | undefined;
  a2aToken: Secret | undefined;
  /** The shared bearer token: whoever presents it is a service (docs/protocol.md §1.2). */
  authToken: Secret | undefined;
  /** IAC_CODE_AGUI_OIDC_*: the identity provider whose JWTs identify people (docs/protocol.md §1.2); undefined = none. */
  oidc: OidcSettings | undefined;
  allowedRoots: string[];
  store: 'file' | 'oss';
  stateDir: string;
  oss: OssSettings | undefined;
  leaseTtlMs: number;
  leaseRenewMs: number;
  heartbeatMs: number;
  /** IAC_CODE_AGUI_BODY_TIMEOUT_MS: time for a whole request body to arrive, else 408 (docs/protocol.md §1.4). */
  bodyTimeoutMs: number;
  /** IAC_CODE_AGUI_MAX_ACTIVE_RUNS: live runs per instance before 503 SERVER_BUSY (docs/protocol.md §1.4). */
  maxActiveRuns: number;
  /** IAC_CODE_AGUI_DETACH_GRACE_MS: the longest detach grace a request may ask for (docs/protocol.md §6.15 "Whose grace"); 0 = none, a disconnect cancels (§6.8). */
  detachGraceMs: number;
  /** On SIGTERM/SIGINT: how long live runs may finish, then how long their clean-up gets (docs/architecture.md §6). */
  shutdown: ShutdownPolicy;
  defaultLanguage: Language;
  /** IAC_CODE_AGUI_LOG_LEVEL: the least severe level written (docs/architecture.md §5). */
  logLevel: LogLevel;
  /** IAC_CODE_AGUI_CONSOLE=1 serves the web console at /console (docs/protocol.md §1). */
  console: boolean;
  /** IAC_CODE_AGUI_CORS_ORIGINS: exact origins allowed by CORS; empty = CORS off (docs/protocol.md §1.5). */
  corsOrigins: string[];
  /**
   * FC_SERVER_PORT is set: Function Compute (or FC-local) runs the process and may call its PreStop
   * hook, so GET /pre-stop exists (docs/protocol.md §1.1, §9.3); anywhere else it is 404.
   */
  preStopHook: boolean;
}

/** Where an entry point runs (lib/adapters/start-adapter.ts). */
export type Platform = 'local' | 'function-compute';

/** The configuration an entry point starts with: the kernel URL is known (the local stack's emulator gave it, or it was configured). */
export type EntryConfig = Config & { a2aUrl: string };

/** IAC_CODE_AGUI_AUTH_TOKEN: the bearer token protecting the POST routes (the smoke and local:fc scripts send it too). */
export function authTokenFrom(env: Env): Secret | undefined {
  return secretFrom(env['IAC_CODE_AGUI_AUTH_TOKEN']);
}

function kernelUrlFrom(env: Env): string | undefined {
  const raw = setting(env, 'IAC_CODE_AGUI_A2A_URL');
  if (raw === undefined) return undefined;
  const url = checkServiceUrl(raw, {
    variable: 'IAC_CODE_AGUI_A2A_URL',
    insecureVariable: 'IAC_CODE_AGUI_A2A_ALLOW_INSECURE',
    allowInsecure: flag(env, 'IAC_CODE_AGUI_A2A_ALLOW_INSECURE'),
  });
  return url.toString();
}

function logLevelFrom(env: Env): LogLevel {
  const level = (env['IAC_CODE_AGUI_LOG_LEVEL'] || 'info').toLowerCase();
  if (!isLogLevel(level)) throw new ConfigError(`IAC_CODE_AGUI_LOG_LEVEL must be debug, info, warn or error, got "${env['IAC_CODE_AGUI_LOG_LEVEL']}"`);
  return level;
}

/** `1` on, `0` or unset off; anything else is a mistake worth stopping for. */
function onOffFlag(name: string, value: string | undefined): boolean {
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

/**
 * Without a platform (tests, tools): the environment alone. With one, as an entry point starts:
 * a kernel URL is required, and 'function-compute' binds 0.0.0.0 on FC's port (FC_SERVER_PORT,
 * else FC_CUSTOM_LISTEN_PORT, else 9000). A set FC_SERVER_PORT alone also means "inside FC" for
 * binding and for OSS credentials (FC brings them with each request).
 */
export function loadConfig(env?: Env): Config;
export function loadConfig(env: Env, options: { platform: Platform }): EntryConfig;
export function loadConfig(env: Env = process.env, options: { platform?: Platform } = {}): Config {
  const inFunctionCompute = options.platform === 'function-compute' || setting(env, 'FC_SERVER_PORT') !== undefined;
  const port = inFunctionCompute ? functionComputePort(env) : positiveInteger(env, 'IAC_CODE_AGUI_PORT', 8000);
  const store = setting(env, 'IAC_CODE_AGUI_STATE_STORE') ?? 'file';
  if (store !== 'file' && store !== 'oss') throw new ConfigError(`IAC_CODE_AGUI_STATE_STORE must be "file" or "oss", got "${store}"`);
  const a2aUrl = kernelUrlFrom(env);
  if (options.platform !== undefined && a2aUrl === undefined) {
    throw new ConfigError(
      options.platform === 'function-compute'
        ? 'IAC_CODE_AGUI_A2A_URL is required in Function Compute (the built-in A2A emulator never starts there)'
        : 'IAC_CODE_AGUI_A2A_URL is required',
    );
  }
  const authToken = authTokenFrom(env);
  const oidc = oidcSettingsFrom(env);
  // FC's HTTP trigger is anonymous: without the adapter's own token or an identity provider anyone
  // could run the agent (docs/protocol.md §1.2). Only an explicit switch lets the function start so.
  if (options.platform === 'function-compute' && authToken === undefined && oidc === undefined && !flag(env, 'IAC_CODE_AGUI_ALLOW_ANONYMOUS')) {
    throw new ConfigError(
      'IAC_CODE_AGUI_AUTH_TOKEN (or IAC_CODE_AGUI_OIDC_ISSUER) is required in Function Compute (its HTTP trigger is anonymous); set IAC_CODE_AGUI_ALLOW_ANONYMOUS=1 to run without one',
    );
  }
  const leaseTtlMs = positiveInteger(env, 'IAC_CODE_AGUI_LEASE_TTL_MS', 30_000);
  const leaseRenewMs = positiveInteger(env, 'IAC_CODE_AGUI_LEASE_RENEW_MS', 10_000);
  if (leaseRenewMs >= leaseTtlMs) throw new ConfigError('IAC_CODE_AGUI_LEASE_RENEW_MS must be shorter than IAC_CODE_AGUI_LEASE_TTL_MS');
  const configDir = setting(env, 'IAC_CODE_CONFIG_DIR') ?? join(homedir(), '.iac-code');

  return {
    host: inFunctionCompute ? '0.0.0.0' : (setting(env, 'IAC_CODE_AGUI_HOST') ?? '127.0.0.1'),
    port,
    a2aUrl,
    a2aToken: secretFrom(env['IAC_CODE_AGUI_A2A_TOKEN']),
    authToken,
    oidc,
    allowedRoots: (env['IAC_CODE_AGUI_ALLOWED_CWDS'] ?? '').split(delimiter).filter((root) => root.length > 0),
    store,
    stateDir: setting(env, 'IAC_CODE_AGUI_STATE_DIR') ?? join(configDir, 'agui'),
    // In FC the role's credentials come with each request; anywhere else they must be configured.
    oss: store === 'oss' ? loadOssSettings(env, inFunctionCompute) : undefined,
    leaseTtlMs,
    leaseRenewMs,
    heartbeatMs: positiveInteger(env, 'IAC_CODE_AGUI_HEARTBEAT_MS', 15_000),
    bodyTimeoutMs: positiveInteger(env, 'IAC_CODE_AGUI_BODY_TIMEOUT_MS', DEFAULT_BODY_TIMEOUT_MS),
    maxActiveRuns: positiveInteger(env, 'IAC_CODE_AGUI_MAX_ACTIVE_RUNS', DEFAULT_MAX_ACTIVE_RUNS),
    detachGraceMs: nonNegativeInteger(env, 'IAC_CODE_AGUI_DETACH_GRACE_MS', 0),
    // Defaults sized for FC: a run's clean-up is one CancelTask and one store write, well under 10 s;
    // the drain lets short turns finish instead of cancelling them.
    shutdown: {
      drainMs: nonNegativeInteger(env, 'IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS', 20_000),
      cleanupMs: nonNegativeInteger(env, 'IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS', 10_000),
    },
    defaultLanguage: defaultLanguageFrom(env),
    logLevel: logLevelFrom(env),
    console: onOffFlag('IAC_CODE_AGUI_CONSOLE', env['IAC_CODE_AGUI_CONSOLE']),
    corsOrigins: corsOriginsFrom(env),
    preStopHook: setting(env, 'FC_SERVER_PORT') !== undefined,
  };
}
