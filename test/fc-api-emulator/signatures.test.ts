/**
 * The FC API emulator checks V3 (ACS3-HMAC-SHA256) signatures the way FC's gateway does: the real
 * @alicloud/fc20230330 client gets through with long-term and STS credentials; a wrong secret, a
 * missing or wrong STS token, an unknown AccessKeyId, a request changed after signing, a missing
 * or unsigned common header and a stale x-acs-date are refused with FC's JSON error shape.
 * Requests are signed by the SDK's own signer (openapi-core `getAuthorization`), never by the
 * emulator's code, so the two implementations check each other.
 */
import { OpenApiUtil } from '@alicloud/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FcApiEmulator, startFcApiEmulator } from '../../lib/emulators/fc-api/server.js';
import { type AliyunCredentials, fcApi, parseEndpoint } from '../../scripts/verify/fc-api-client.js';

const LONG_TERM = { accessKeyId: 'LTAI-test', accessKeySecret: 'long-term-secret' };
const STS = { accessKeyId: 'STS.test', accessKeySecret: 'sts-secret', securityToken: 'sts-token-value' };
const READ_ONLY_TRIGGERS = { accessKeyId: 'LTAI-triggers', accessKeySecret: 'triggers-secret', allowedActions: ['ListTriggers'] };

let emulator: FcApiEmulator;

beforeAll(async () => {
  emulator = await startFcApiEmulator({
    credentials: [LONG_TERM, STS, READ_ONLY_TRIGGERS],
    functions: [{ functionName: 'agui fn', runtime: 'custom.debian12', timeout: 3600, environmentVariables: { IAC_CODE_AGUI_AUTH_TOKEN: 'deployed-token' } }],
  });
});
afterAll(() => emulator.close());

function api(credentials: AliyunCredentials) {
  return fcApi(credentials, parseEndpoint(emulator.endpoint, 'test'), 'cn-hangzhou');
}

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; statusCode?: number; data?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; statusCode?: number; data?: Record<string, unknown> };
  }
  throw new Error('expected the call to be refused');
}

/** A GET signed by the SDK's signer, sent with fetch, optionally altered after signing. */
async function signedGet(options: { path: string; query?: Record<string, string>; dropHeader?: string; extraUnsignedHeader?: [string, string]; date?: string; sendPath?: string }) {
  const host = new URL(emulator.endpoint).host;
  const headers: Record<string, string> = {
    host,
    'x-acs-action': 'GetFunction',
    'x-acs-version': '2023-03-30',
    'x-acs-date': options.date ?? OpenApiUtil.getTimestamp(),
    'x-acs-signature-nonce': OpenApiUtil.getNonce(),
    'x-acs-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  };
  const request = { method: 'GET', pathname: options.path, query: options.query ?? {}, headers } as unknown as Parameters<typeof OpenApiUtil.getAuthorization>[0];
  headers['authorization'] = OpenApiUtil.getAuthorization(request, 'ACS3-HMAC-SHA256', headers['x-acs-content-sha256'] as string, LONG_TERM.accessKeyId, LONG_TERM.accessKeySecret);
  if (options.dropHeader) delete headers[options.dropHeader];
  if (options.extraUnsignedHeader) headers[options.extraUnsignedHeader[0]] = options.extraUnsignedHeader[1];
  const { host: _host, ...sent } = headers;
  const query = new URLSearchParams(options.query ?? {}).toString();
  const response = await fetch(`${emulator.endpoint}${options.sendPath ?? options.path}${query ? `?${query}` : ''}`, { headers: sent });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, requestId: response.headers.get('x-fc-request-id') };
}

describe('FC API emulator: signatures', () => {
  it('lets the real SDK read a function with long-term and with STS credentials, answering FC 3.0 JSON', async () => {
    const fn = await api(LONG_TERM).getFunction('agui fn');
    expect(fn.functionName).toBe('agui fn');
    expect(fn.runtime).toBe('custom.debian12');
    expect(fn.functionArn).toBe('acs:fc:cn-hangzhou:1234567890123456:functions/agui fn');
    // FC returns environment variable values; the client must be the one to drop them.
    expect(fn.environmentVariables).toEqual({ IAC_CODE_AGUI_AUTH_TOKEN: 'deployed-token' });
    expect((await api(STS).getFunction('agui fn')).timeout).toBe(3600);
  });

  it('refuses a wrong secret with 403 SignatureNotMatch in FC’s {Code, Message, RequestId} shape', async () => {
    const error = await rejection(api({ ...LONG_TERM, accessKeySecret: 'wrong-secret' }).getFunction('agui fn'));
    expect(error.statusCode).toBe(403);
    expect(error.code).toBe('SignatureNotMatch');
    expect(Object.keys(error.data ?? {}).sort()).toEqual(['Code', 'Message', 'RequestId']);
    expect(error.data?.['RequestId']).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
  });

  it('refuses STS credentials without their token or with another one, and an unknown AccessKeyId', async () => {
    const { securityToken: _token, ...withoutToken } = STS;
    expect((await rejection(api(withoutToken).getFunction('agui fn'))).code).toBe('InvalidSecurityToken');
    expect((await rejection(api({ ...STS, securityToken: 'other-token' }).getFunction('agui fn'))).code).toBe('InvalidSecurityToken');
    const unknown = await rejection(api({ accessKeyId: 'LTAI-nobody', accessKeySecret: 'x' }).getFunction('agui fn'));
    expect([unknown.statusCode, unknown.code]).toEqual([403, 'InvalidAccessKeyID']);
  });

  it('answers AccessDenied for an action the identity may not call, naming it and the function', async () => {
    const error = await rejection(api(READ_ONLY_TRIGGERS).getFunction('agui fn'));
    expect([error.statusCode, error.code]).toEqual([403, 'AccessDenied']);
    expect(error.data?.['Message']).toBe("the caller is not authorized to perform 'fc:GetFunction' on resource 'acs:fc:cn-hangzhou:1234567890123456:functions/agui fn'");
  });

  it('accepts a request signed by the SDK signer, and refuses it once its path or query changed', async () => {
    const good = await signedGet({ path: '/2023-03-30/functions/agui%20fn', query: { qualifier: 'LATEST' } });
    expect(good.status).toBe(200);
    expect(good.body['functionName']).toBe('agui fn');
    const otherPath = await signedGet({ path: '/2023-03-30/functions/agui%20fn', sendPath: '/2023-03-30/functions/other' });
    expect([otherPath.status, otherPath.body['Code']]).toEqual([403, 'SignatureNotMatch']);
    expect(otherPath.requestId).toBe(otherPath.body['RequestId']);
  });

  it('needs every common header, signed, and an x-acs-date within 15 minutes', async () => {
    const path = '/2023-03-30/functions/agui%20fn';
    const noDate = await signedGet({ path, dropHeader: 'x-acs-date' });
    expect([noDate.status, noDate.body['Code'], noDate.body['Message']]).toEqual([400, 'MissingRequiredHeader', 'required HTTP header x-acs-date was not specified']);
    const unsigned = await signedGet({ path, extraUnsignedHeader: ['x-acs-security-token', 'slipped-in'] });
    expect([unsigned.status, unsigned.body['Code']]).toEqual([400, 'InvalidArgument']);
    const stale = await signedGet({ path, date: new Date(Date.now() - 20 * 60 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') });
    expect([stale.status, stale.body['Code']]).toEqual([403, 'RequestTimeTooSkewed']);
  });

  it('answers 404 FunctionNotFound for a function nobody seeded', async () => {
    const error = await rejection(api(LONG_TERM).getFunction('missing'));
    expect([error.statusCode, error.code, error.data?.['Message']]).toEqual([404, 'FunctionNotFound', "function 'missing' does not exist."]);
  });
});
