/**
 * One URL rule for the A2A kernel and the OSS endpoint (lib/adapters/config/url-policy.ts,
 * docs/protocol.md §9): https always; plain http to localhost, 127.0.0.0/8 or ::1; plain http to
 * any other host only with that service's ALLOW_INSECURE=1. The same table runs against both
 * variables through the real configuration loader.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/adapters/config.js';

type Verdict = 'allowed' | 'needs-insecure' | 'refused';

const URLS: Array<[string, Verdict]> = [
  ['https://kernel.example.com', 'allowed'],
  ['https://10.0.0.5:8443', 'allowed'],
  ['http://localhost:9000', 'allowed'],
  ['http://LOCALHOST:9000', 'allowed'],
  ['http://127.0.0.1:41242', 'allowed'],
  ['http://127.8.9.10', 'allowed'],
  ['http://[::1]:8080', 'allowed'],
  ['http://[0:0:0:0:0:0:0:1]:8080', 'allowed'],
  ['http://10.0.0.5', 'needs-insecure'],
  ['http://192.168.1.20:9000', 'needs-insecure'],
  ['http://[fd00::5]:9000', 'needs-insecure'],
  ['http://kernel.example.com', 'needs-insecure'],
  ['http://localhost.example.com', 'needs-insecure'],
  ['http://127.0.0.1.nip.io', 'needs-insecure'],
  ['ftp://127.0.0.1', 'refused'],
];

const SERVICES: Array<{ name: string; variable: string; insecure: string; base: Record<string, string> }> = [
  { name: 'kernel', variable: 'IAC_CODE_AGUI_A2A_URL', insecure: 'IAC_CODE_AGUI_A2A_ALLOW_INSECURE', base: {} },
  {
    name: 'OSS',
    variable: 'IAC_CODE_AGUI_OSS_ENDPOINT',
    insecure: 'IAC_CODE_AGUI_OSS_ALLOW_INSECURE',
    base: { IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_BUCKET: 'agui-state', ALIBABA_CLOUD_ACCESS_KEY_ID: 'id', ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'secret' },
  },
];

function failure(env: Record<string, string>): Error | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

describe.each(SERVICES)('the $name URL ($variable)', ({ variable, insecure, base }) => {
  it.each(URLS)('%s is %s', (url, verdict) => {
    const plain = failure({ ...base, [variable]: url });
    const withInsecure = failure({ ...base, [variable]: url, [insecure]: '1' });
    if (verdict === 'allowed') {
      expect(plain).toBeUndefined();
      expect(withInsecure).toBeUndefined();
    } else if (verdict === 'needs-insecure') {
      expect(plain).toBeInstanceOf(ConfigError);
      expect(plain?.message).toBe(`${variable} must use https for a non-loopback host (set ${insecure}=1 to allow http)`);
      expect(withInsecure).toBeUndefined();
    } else {
      expect(plain?.message).toBe(`${variable} must be http or https`);
      expect(withInsecure?.message).toBe(`${variable} must be http or https`);
    }
  });

  it('names the variable when the value is not a URL', () => {
    expect(failure({ ...base, [variable]: 'http://' })?.message).toMatch(new RegExp(`^${variable} is not a URL`));
  });

  it('takes "1" only as the switch', () => {
    expect(failure({ ...base, [variable]: 'http://10.0.0.5', [insecure]: 'true' })).toBeInstanceOf(ConfigError);
  });
});
