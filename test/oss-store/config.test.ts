/**
 * OSS settings from the environment (docs/protocol.md §9.1, §9.2): endpoint as given or derived from either region
 * spelling, the internal endpoint, path-style for loopback, V4 whenever the region is known, https
 * for remote hosts, credentials held as secrets and required outside FC, one clear line per error.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/adapters/config.js';

const KEYS = { ALIBABA_CLOUD_ACCESS_KEY_ID: 'LTAI-id-1', ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'secret-2', ALIBABA_CLOUD_SECURITY_TOKEN: 'token-3' };
const OSS = { IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_BUCKET: 'agui-state', ...KEYS };

describe('OSS configuration', () => {
  it('derives https://oss-<region>.aliyuncs.com from either region spelling, and V4 signing', () => {
    for (const region of ['cn-hangzhou', 'oss-cn-hangzhou']) {
      expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_REGION: region }).oss).toMatchObject({
        bucket: 'agui-state',
        endpoint: 'https://oss-cn-hangzhou.aliyuncs.com',
        region: 'cn-hangzhou',
        pathStyle: false,
        signature: 'v4',
        prefix: 'agui',
        timeoutMs: 5_000,
      });
    }
  });

  it('uses the internal endpoint on request, and reads the region back from an aliyuncs endpoint', () => {
    expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_REGION: 'cn-shanghai', IAC_CODE_AGUI_OSS_INTERNAL: '1' }).oss?.endpoint).toBe('https://oss-cn-shanghai-internal.aliyuncs.com');
    expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_ENDPOINT: 'oss-cn-beijing-internal.aliyuncs.com' }).oss).toMatchObject({
      endpoint: 'https://oss-cn-beijing-internal.aliyuncs.com',
      region: 'cn-beijing',
      signature: 'v4',
    });
  });

  it('takes any endpoint as given: a loopback emulator over http, path-style', () => {
    const oss = loadConfig({
      ...OSS,
      IAC_CODE_AGUI_OSS_ENDPOINT: 'http://127.0.0.1:9123',
      IAC_CODE_AGUI_OSS_REGION: 'oss-cn-hangzhou',
      IAC_CODE_AGUI_OSS_PREFIX: '/tenant-a/agui/',
    }).oss;
    expect(oss).toMatchObject({ endpoint: 'http://127.0.0.1:9123', region: 'cn-hangzhou', pathStyle: true, signature: 'v4', prefix: 'tenant-a/agui' });
    // Without a region a custom endpoint signs V1, unless told otherwise.
    expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_ENDPOINT: 'http://localhost:9123' }).oss).toMatchObject({ signature: 'v1', region: undefined, pathStyle: true });
    expect(() => loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_ENDPOINT: 'http://localhost:9123', IAC_CODE_AGUI_OSS_SIGNATURE: 'v4' })).toThrow(/IAC_CODE_AGUI_OSS_REGION/);
  });

  it('refuses plain http to a remote host unless explicitly allowed', () => {
    expect(() => loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_ENDPOINT: 'http://oss.example.com' })).toThrow(/https/);
    expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_ENDPOINT: 'http://oss.example.com', IAC_CODE_AGUI_OSS_ALLOW_INSECURE: '1' }).oss?.endpoint).toBe('http://oss.example.com');
  });

  it('proves saves by time unless every save must be verified (docs/state-store.md "Upgrading")', () => {
    expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou' }).oss?.verifyEverySave).toBe(false);
    expect(loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou', IAC_CODE_AGUI_OSS_VERIFY_EVERY_SAVE: '1' }).oss?.verifyEverySave).toBe(true);
  });

  it('keeps the environment credentials as secrets', () => {
    const config = loadConfig({ ...OSS, IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou' });
    expect(config.oss?.credentials?.accessKeySecret.reveal()).toBe('secret-2');
    expect(config.oss?.credentials?.securityToken?.reveal()).toBe('token-3');
    expect(JSON.stringify(config)).not.toMatch(/LTAI-id-1|secret-2|token-3/);
  });

  it('requires credentials outside Function Compute only (FC brings them with each request)', () => {
    const noKeys = { IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_BUCKET: 'agui-state', IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou' };
    expect(() => loadConfig(noKeys)).toThrow(/ALIBABA_CLOUD_ACCESS_KEY_ID/);
    expect(loadConfig({ ...noKeys, FC_SERVER_PORT: '9000' }).oss?.credentials).toBeUndefined();
    expect(() => loadConfig({ ...noKeys, ALIBABA_CLOUD_ACCESS_KEY_ID: 'only-the-id' })).toThrow(/must be set together/);
  });

  it('fails fast with one line naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ IAC_CODE_AGUI_OSS_BUCKET: '' }, /IAC_CODE_AGUI_OSS_BUCKET is required/],
      [{ IAC_CODE_AGUI_OSS_BUCKET: 'Not_A_Bucket' }, /IAC_CODE_AGUI_OSS_BUCKET is not an OSS bucket name/],
      [{}, /IAC_CODE_AGUI_OSS_REGION or IAC_CODE_AGUI_OSS_ENDPOINT is required/],
      [{ IAC_CODE_AGUI_OSS_REGION: 'cn hangzhou' }, /IAC_CODE_AGUI_OSS_REGION is not a region id/],
      [{ IAC_CODE_AGUI_OSS_ENDPOINT: 'ftp://oss' }, /IAC_CODE_AGUI_OSS_ENDPOINT must be http or https/],
      [{ IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou', IAC_CODE_AGUI_OSS_SIGNATURE: 'v2' }, /IAC_CODE_AGUI_OSS_SIGNATURE/],
      [{ IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou', IAC_CODE_AGUI_OSS_TIMEOUT_MS: 'soon' }, /IAC_CODE_AGUI_OSS_TIMEOUT_MS must be a positive integer/],
    ];
    for (const [env, message] of cases) {
      const error = (() => {
        try {
          loadConfig({ ...OSS, ...env });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });
});
