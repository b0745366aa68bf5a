import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/adapters/config.js';

describe('configuration (docs/protocol.md §9.1)', () => {
  it('defaults to 127.0.0.1:8000, the file store under IAC_CODE_CONFIG_DIR, a 30 s lease renewed every 10 s', () => {
    const config = loadConfig({ IAC_CODE_CONFIG_DIR: '/cfg' });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8000,
      store: 'file',
      stateDir: '/cfg/agui',
      leaseTtlMs: 30_000,
      leaseRenewMs: 10_000,
      heartbeatMs: 15_000,
      allowedRoots: [],
    });
    expect(loadConfig({ IAC_CODE_AGUI_STATE_DIR: '/state' }).stateDir).toBe('/state');
  });

  it('serves the web console only with IAC_CODE_AGUI_CONSOLE=1 (npm start sets it by default), and refuses another value', () => {
    expect(loadConfig({}).console).toBe(false);
    expect(loadConfig({ FC_SERVER_PORT: '9000' }).console).toBe(false);
    expect(loadConfig({ IAC_CODE_AGUI_CONSOLE: '1' }).console).toBe(true);
    expect(loadConfig({ IAC_CODE_AGUI_CONSOLE: '0' }).console).toBe(false);
    expect(() => loadConfig({ IAC_CODE_AGUI_CONSOLE: 'yes' })).toThrow('IAC_CODE_AGUI_CONSOLE must be "1" or "0", got "yes"');
  });

  it('binds 0.0.0.0 on FC_SERVER_PORT inside Function Compute, winning over IAC_CODE_AGUI_PORT', () => {
    expect(loadConfig({ FC_SERVER_PORT: '9000', IAC_CODE_AGUI_PORT: '8123' })).toMatchObject({ host: '0.0.0.0', port: 9000 });
  });

  it('as the FC entry starts: FC_SERVER_PORT, else FC_CUSTOM_LISTEN_PORT, else 9000, and a kernel URL is required', () => {
    const kernel = { IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.com', IAC_CODE_AGUI_AUTH_TOKEN: 'fc-token' };
    const fc = (env: Record<string, string>) => loadConfig({ ...kernel, ...env }, { platform: 'function-compute' });
    expect(fc({ FC_SERVER_PORT: '9100', FC_CUSTOM_LISTEN_PORT: '9200', IAC_CODE_AGUI_PORT: '8123' })).toMatchObject({ host: '0.0.0.0', port: 9100 });
    expect(fc({ FC_CUSTOM_LISTEN_PORT: '9200' })).toMatchObject({ host: '0.0.0.0', port: 9200 });
    expect(fc({ IAC_CODE_AGUI_PORT: '8123' })).toMatchObject({ host: '0.0.0.0', port: 9000 });
    expect(() => fc({ FC_CUSTOM_LISTEN_PORT: 'nine' })).toThrow(/FC_CUSTOM_LISTEN_PORT must be a positive integer/);
    expect(() => loadConfig({ FC_SERVER_PORT: '9000', IAC_CODE_AGUI_AUTH_TOKEN: 'fc-token' }, { platform: 'function-compute' })).toThrow(
      /IAC_CODE_AGUI_A2A_URL is required in Function Compute/,
    );
    expect(() => loadConfig({}, { platform: 'local' })).toThrow(ConfigError);
  });

  it('requires https for a remote kernel unless explicitly allowed; loopback http is fine', () => {
    expect(() => loadConfig({ IAC_CODE_AGUI_A2A_URL: 'http://kernel.internal:8080' })).toThrow(ConfigError);
    expect(loadConfig({ IAC_CODE_AGUI_A2A_URL: 'http://kernel.internal:8080', IAC_CODE_AGUI_A2A_ALLOW_INSECURE: '1' }).a2aUrl).toBe('http://kernel.internal:8080/');
    expect(loadConfig({ IAC_CODE_AGUI_A2A_URL: 'http://127.0.0.1:41242' }).a2aUrl).toBe('http://127.0.0.1:41242/');
    expect(loadConfig({ IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.com/a2a' }).a2aUrl).toBe('https://kernel.example.com/a2a');
    expect(() => loadConfig({ IAC_CODE_AGUI_A2A_URL: 'not a url' })).toThrow(/IAC_CODE_AGUI_A2A_URL/);
  });

  it('fails fast with one line naming the variable', () => {
    expect(() => loadConfig({ IAC_CODE_AGUI_LEASE_TTL_MS: 'soon' })).toThrow(/IAC_CODE_AGUI_LEASE_TTL_MS must be a positive integer/);
    expect(() => loadConfig({ IAC_CODE_AGUI_LEASE_TTL_MS: '1000', IAC_CODE_AGUI_LEASE_RENEW_MS: '1000' })).toThrow(/RENEW/);
    expect(() => loadConfig({ IAC_CODE_AGUI_STATE_STORE: 's3' })).toThrow(/IAC_CODE_AGUI_STATE_STORE/);
    expect(() => loadConfig({ IAC_CODE_AGUI_STATE_STORE: 'oss' })).toThrow(/IAC_CODE_AGUI_OSS_BUCKET/);
  });

  it('reads the log level (IAC_CODE_AGUI_LOG_LEVEL, default info) and fails fast on a bad one', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ IAC_CODE_AGUI_LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(loadConfig({ IAC_CODE_AGUI_LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(() => loadConfig({ IAC_CODE_AGUI_LOG_LEVEL: 'verbose' })).toThrow(/^IAC_CODE_AGUI_LOG_LEVEL must be debug, info, warn or error, got "verbose"$/);
  });

  it('keeps tokens as secrets that print redacted', () => {
    const config = loadConfig({ IAC_CODE_AGUI_AUTH_TOKEN: 'tok-123', IAC_CODE_AGUI_A2A_TOKEN: 'tok-456' });
    expect(config.authToken?.reveal()).toBe('tok-123');
    expect(JSON.stringify(config)).not.toMatch(/tok-/);
    expect(String(config.a2aToken)).toBe('[redacted]');
  });

  it('takes the default language from the locale environment', () => {
    expect(loadConfig({ LANG: 'de_DE.UTF-8' }).defaultLanguage).toBe('de');
    expect(loadConfig({ LANG: 'C.UTF-8' }).defaultLanguage).toBe('en');
  });

  it('reads IAC_CODE_AGUI_CORS_ORIGINS as exact origins (comma-separated, trimmed, de-duplicated); unset or empty = CORS off', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ IAC_CODE_AGUI_CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
    expect(loadConfig({ IAC_CODE_AGUI_CORS_ORIGINS: ' https://console.example.com , http://localhost:5173,https://console.example.com,' }).corsOrigins).toEqual([
      'https://console.example.com',
      'http://localhost:5173',
    ]);
    // Browsers send the bare origin: a path, a trailing slash, a default port, upper case or a wildcard would never match.
    for (const bad of [
      'https://console.example.com/',
      'https://console.example.com/app',
      'https://Console.example.com',
      'https://console.example.com:443',
      '*',
      'console.example.com',
      'ftp://files.example.com',
    ]) {
      expect(() => loadConfig({ IAC_CODE_AGUI_CORS_ORIGINS: bad }), bad).toThrow(/^IAC_CODE_AGUI_CORS_ORIGINS lists/);
    }
    expect(() => loadConfig({ IAC_CODE_AGUI_CORS_ORIGINS: 'https://console.example.com/' })).toThrow(/e\.g\. "https:\/\/console\.example\.com"/);
  });

  it('addresses an OSS endpoint path-style for IP and loopback hosts, and for a named host only with IAC_CODE_AGUI_OSS_PATH_STYLE=1', () => {
    const oss = (env: Record<string, string>) =>
      loadConfig({
        IAC_CODE_AGUI_STATE_STORE: 'oss',
        IAC_CODE_AGUI_OSS_BUCKET: 'agui-state',
        IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou',
        ALIBABA_CLOUD_ACCESS_KEY_ID: 'id',
        ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'secret',
        ...env,
      }).oss;
    expect(oss({ IAC_CODE_AGUI_OSS_ENDPOINT: 'http://127.0.0.1:9100' })?.pathStyle).toBe(true);
    expect(oss({ IAC_CODE_AGUI_OSS_ENDPOINT: 'http://172.17.0.1:9100', IAC_CODE_AGUI_OSS_ALLOW_INSECURE: '1' })?.pathStyle).toBe(true);
    expect(oss({ IAC_CODE_AGUI_OSS_ENDPOINT: 'http://host.docker.internal:9100', IAC_CODE_AGUI_OSS_ALLOW_INSECURE: '1' })?.pathStyle).toBe(false);
    expect(oss({ IAC_CODE_AGUI_OSS_ENDPOINT: 'http://host.docker.internal:9100', IAC_CODE_AGUI_OSS_ALLOW_INSECURE: '1', IAC_CODE_AGUI_OSS_PATH_STYLE: '1' })?.pathStyle).toBe(true);
    expect(oss({})?.pathStyle).toBe(false);
  });

  it('the FC entry refuses to start without a bearer token or an identity provider (its trigger is anonymous) unless anonymous access is allowed', () => {
    const kernel = { IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.com' };
    expect(() => loadConfig(kernel, { platform: 'function-compute' })).toThrow(
      /^IAC_CODE_AGUI_AUTH_TOKEN \(or IAC_CODE_AGUI_OIDC_ISSUER\) is required in Function Compute \(its HTTP trigger is anonymous\); set IAC_CODE_AGUI_ALLOW_ANONYMOUS=1 to run without one$/,
    );
    const oidc = { IAC_CODE_AGUI_OIDC_ISSUER: 'https://idaas.example.com/oidc', IAC_CODE_AGUI_OIDC_AUDIENCE: 'agui' };
    expect(loadConfig({ ...kernel, ...oidc }, { platform: 'function-compute' }).oidc?.issuer).toBe('https://idaas.example.com/oidc');
    expect(() => loadConfig({ ...kernel, IAC_CODE_AGUI_ALLOW_ANONYMOUS: 'yes' }, { platform: 'function-compute' })).toThrow(
      /IAC_CODE_AGUI_AUTH_TOKEN \(or IAC_CODE_AGUI_OIDC_ISSUER\) is required/,
    );
    expect(loadConfig({ ...kernel, IAC_CODE_AGUI_ALLOW_ANONYMOUS: '1' }, { platform: 'function-compute' }).authToken).toBeUndefined();
    // Locally (npm start binds loopback) a token stays optional.
    expect(loadConfig(kernel, { platform: 'local' }).authToken).toBeUndefined();
  });

  it('reads the body deadline and the live-run cap, failing fast on bad values', () => {
    expect(loadConfig({})).toMatchObject({ bodyTimeoutMs: 30_000, maxActiveRuns: 1_000 });
    expect(loadConfig({ IAC_CODE_AGUI_BODY_TIMEOUT_MS: '5000', IAC_CODE_AGUI_MAX_ACTIVE_RUNS: '20' })).toMatchObject({ bodyTimeoutMs: 5_000, maxActiveRuns: 20 });
    expect(() => loadConfig({ IAC_CODE_AGUI_BODY_TIMEOUT_MS: '0' })).toThrow(/^IAC_CODE_AGUI_BODY_TIMEOUT_MS must be a positive integer, got "0"$/);
    expect(() => loadConfig({ IAC_CODE_AGUI_MAX_ACTIVE_RUNS: 'many' })).toThrow(/^IAC_CODE_AGUI_MAX_ACTIVE_RUNS must be a positive integer, got "many"$/);
  });

  it('reads the identity provider (IAC_CODE_AGUI_OIDC_*, docs/protocol.md §9.1): none by default, the issuer kept as written, an audience required', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    const issuer = 'https://eiam-api-cn-hangzhou.aliyuncs.com/v2/idaas_abc/app_xyz/oidc';
    expect(loadConfig({ IAC_CODE_AGUI_OIDC_ISSUER: issuer, IAC_CODE_AGUI_OIDC_AUDIENCE: ' app_xyz , https://agui.example.com ,app_xyz' }).oidc).toEqual({
      issuer,
      audiences: ['app_xyz', 'https://agui.example.com'],
      clients: undefined,
      userClaim: 'sub',
      console: undefined,
    });
    const full = loadConfig({
      IAC_CODE_AGUI_OIDC_ISSUER: `${issuer}/`,
      IAC_CODE_AGUI_OIDC_AUDIENCE: 'app_xyz',
      IAC_CODE_AGUI_OIDC_CLIENTS: 'app_xyz,ros-bff',
      IAC_CODE_AGUI_OIDC_USER_CLAIM: 'preferred_username',
      IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID: 'app_xyz',
    }).oidc;
    expect(full).toEqual({
      issuer: `${issuer}/`,
      audiences: ['app_xyz'],
      clients: ['app_xyz', 'ros-bff'],
      userClaim: 'preferred_username',
      console: { clientId: 'app_xyz', scope: 'openid offline_access' },
    });
    expect(loadConfig({ IAC_CODE_AGUI_OIDC_ISSUER: 'http://127.0.0.1:4000', IAC_CODE_AGUI_OIDC_AUDIENCE: 'a' }).oidc?.issuer).toBe('http://127.0.0.1:4000');
  });

  it('refuses an identity provider it could not use safely, naming the variable', () => {
    const audience = { IAC_CODE_AGUI_OIDC_AUDIENCE: 'agui' };
    expect(() => loadConfig({ IAC_CODE_AGUI_OIDC_ISSUER: 'http://idp.example.com', ...audience })).toThrow(
      /^IAC_CODE_AGUI_OIDC_ISSUER must use https \(plain http only on a loopback host\)/,
    );
    expect(() => loadConfig({ IAC_CODE_AGUI_OIDC_ISSUER: 'idp.example.com', ...audience })).toThrow(/^IAC_CODE_AGUI_OIDC_ISSUER is not a URL/);
    expect(() => loadConfig({ IAC_CODE_AGUI_OIDC_ISSUER: 'https://idp.example.com?x=1', ...audience })).toThrow(/no query or fragment/);
    expect(() => loadConfig({ IAC_CODE_AGUI_OIDC_ISSUER: 'https://idp.example.com' })).toThrow(/^IAC_CODE_AGUI_OIDC_AUDIENCE is required with IAC_CODE_AGUI_OIDC_ISSUER/);
    expect(() => loadConfig({ IAC_CODE_AGUI_OIDC_AUDIENCE: 'agui' })).toThrow(/^IAC_CODE_AGUI_OIDC_AUDIENCE is set but IAC_CODE_AGUI_OIDC_ISSUER is not/);
    const oidc = { IAC_CODE_AGUI_OIDC_ISSUER: 'https://idp.example.com', ...audience };
    expect(() => loadConfig({ ...oidc, IAC_CODE_AGUI_OIDC_USER_CLAIM: 'a b' })).toThrow(/IAC_CODE_AGUI_OIDC_USER_CLAIM must name one claim/);
    expect(() => loadConfig({ ...oidc, IAC_CODE_AGUI_OIDC_CLIENTS: 'ros-bff', IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID: 'console' })).toThrow(/is not in IAC_CODE_AGUI_OIDC_CLIENTS/);
    expect(() => loadConfig({ ...oidc, IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE: 'openid' })).toThrow(
      /IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE is set but IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID is not/,
    );
    expect(() => loadConfig({ ...oidc, IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID: 'console', IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE: 'profile' })).toThrow(/must include "openid"/);
  });
});
