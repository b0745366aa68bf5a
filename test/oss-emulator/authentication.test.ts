/**
 * Authentication as OSS does it (docs/architecture.md §9.3). The emulator
 * recomputes every signature from the request it received; these tests prove the check is real:
 * requests signed independently (with ali-oss's own signUtils, then sent with a raw fetch) pass,
 * and the same requests with a forged signature, a tampered signed header, resource or query, a
 * wrong secret, an unknown key, a missing, wrong or expired STS token, or a stale date fail with
 * OSS's error codes.
 */
import { createRequire } from 'node:module';
import type OSS from 'ali-oss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OssCredential, type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { type ClientOptions, emulatorClient, type Signing } from './ali-oss-client.js';

/** The signing helpers ali-oss 6.23 itself uses (lib/common/signUtils.js), as an independent oracle. */
interface SignUtils {
  buildCanonicalString(method: string, resource: string, request: { headers: Record<string, string>; parameters?: Record<string, string> }): string;
  computeSignature(accessKeySecret: string, canonicalString: string): string;
  authorizationV4(
    accessKeyId: string,
    accessKeySecret: string,
    region: string,
    method: string,
    request: { headers: Record<string, string>; queries?: Record<string, string | null> },
    bucketName?: string,
    objectName?: string,
  ): string;
}
const signUtils = createRequire(import.meta.url)('ali-oss/lib/common/signUtils.js') as SignUtils;

const STS = { accessKeyId: 'STS.test', accessKeySecret: 'sts-secret', securityToken: 'sts-token-1' };
/** An STS credential whose expiry the tests move (the emulator reads the object it was given). */
const EXPIRING: OssCredential = { accessKeyId: 'STS.expiring', accessKeySecret: 'sts-secret-2', securityToken: 'sts-token-2' };

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator({ credentials: [{ accessKeyId: 'test-ak', accessKeySecret: 'test-secret' }, STS, EXPIRING] });
});
afterAll(async () => {
  await emulator.close();
});

function client(signing: Signing, extra: Partial<ClientOptions> = {}): OSS {
  // Silences ali-oss's "set refreshSTSToken" warning; no refresh function means no refresh.
  return emulatorClient(emulator.endpoint, signing, { refreshSTSTokenInterval: 3_600_000, ...extra });
}

interface RawRequest {
  method: string;
  key: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer;
}

function url(request: RawRequest): string {
  const query = new URLSearchParams(request.query ?? {}).toString();
  return `${emulator.endpoint}/agui-state/${encodeURIComponent(request.key).replace(/%2F/g, '/')}${query === '' ? '' : `?${query}`}`;
}

/** Headers of a V1-signed request (x-oss-date, as ali-oss sends it, instead of Date). */
function signV1(request: RawRequest, secret = 'test-secret', date = new Date()): Record<string, string> {
  const headers: Record<string, string> = { 'x-oss-date': date.toUTCString(), ...request.headers };
  const canonical = signUtils.buildCanonicalString(request.method, `/agui-state/${request.key}`, { headers });
  return { ...headers, authorization: `OSS test-ak:${signUtils.computeSignature(secret, canonical)}` };
}

function signV4(request: RawRequest, region = 'cn-hangzhou'): Record<string, string> {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const headers: Record<string, string> = { 'x-oss-date': stamp, 'x-oss-content-sha256': 'UNSIGNED-PAYLOAD', ...request.headers };
  const authorization = signUtils.authorizationV4('test-ak', 'test-secret', region, request.method, { headers, queries: request.query ?? {} }, 'agui-state', request.key);
  return { ...headers, authorization };
}

async function send(request: RawRequest, headers: Record<string, string>, target = url(request)): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(target, { method: request.method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function forge(signature: string): string {
  const last = signature.at(-1) === 'A' ? 'B' : 'A';
  return signature.slice(0, -1) + last;
}

describe('raw requests: the signature check is real', () => {
  const put: RawRequest = { method: 'PUT', key: 'raw/doc.json', headers: { 'content-type': 'application/json', 'x-oss-meta-writer': 'w1' }, body: Buffer.from('{"a":1}') };

  it('accepts a correctly V1-signed PUT and GET sent with fetch', async () => {
    const stored = await send(put, signV1(put));
    expect(stored.status).toBe(200);
    expect(emulator.readObject('agui-state', 'raw/doc.json')?.toString()).toBe('{"a":1}');
    const get: RawRequest = { method: 'GET', key: 'raw/doc.json' };
    const got = await send(get, signV1(get));
    expect(got.status).toBe(200);
    expect(got.text).toBe('{"a":1}');
    expect(got.headers.get('x-oss-meta-writer')).toBe('w1');
  });

  it('rejects a forged V1 signature with 403 SignatureDoesNotMatch, as OSS XML', async () => {
    const headers = signV1(put);
    const response = await send(put, { ...headers, authorization: forge(headers.authorization ?? '') });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('application/xml');
    const requestId = response.headers.get('x-oss-request-id');
    expect(requestId).toMatch(/^[0-9A-F]{24}$/);
    expect(response.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>SignatureDoesNotMatch<\/Code><Message>[^<]+<\/Message>/);
    expect(response.text).toContain(`<RequestId>${requestId}</RequestId><HostId>`);
    expect(response.text).toContain('<StringToSign>PUT\n');
  });

  it('rejects V1 requests whose signed parts were changed after signing', async () => {
    const headers = signV1(put);
    // A signed x-oss-* header, the Content-Type and the resource are all covered by the signature.
    expect((await send(put, { ...headers, 'x-oss-meta-writer': 'w2' })).status).toBe(403);
    expect((await send(put, { ...headers, 'content-type': 'text/plain' })).status).toBe(403);
    expect((await send(put, headers, url({ ...put, key: 'raw/other.json' }))).text).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(emulator.readObject('agui-state', 'raw/other.json')).toBeUndefined();
  });

  it('rejects a V1 request signed with the wrong secret, and one from a stale clock', async () => {
    expect((await send(put, signV1(put, 'not-the-secret'))).text).toContain('<Code>SignatureDoesNotMatch</Code>');
    const stale = await send(put, signV1(put, 'test-secret', new Date(Date.now() - 20 * 60_000)));
    expect(stale.status).toBe(403);
    expect(stale.text).toContain('<Code>RequestTimeTooSkewed</Code>');
  });

  it('accepts a correctly V4-signed request and rejects the forged one with the CanonicalRequest in the body', async () => {
    const v4Put: RawRequest = { ...put, key: 'raw/v4.json' };
    const headers = signV4(v4Put);
    expect((await send(v4Put, headers)).status).toBe(200);
    const forged = await send(v4Put, { ...headers, authorization: forge(headers.authorization ?? '') });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(forged.text).toContain('<CanonicalRequest>PUT\n/agui-state/raw/v4.json\n');
  });

  it('signs every query parameter in V4 (unlike V1, which signs only sub-resources)', async () => {
    const list: RawRequest = { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'raw/' } };
    const v4 = signV4(list);
    expect((await send(list, v4)).status).toBe(200);
    expect((await send(list, v4, url({ ...list, query: { 'list-type': '2', prefix: 'other/' } }))).status).toBe(403);
    // V1 leaves prefix unsigned, so the same tampering goes through, as on OSS.
    const v1 = signV1(list);
    expect((await send(list, v1, url({ ...list, query: { 'list-type': '2', prefix: 'other/' } }))).status).toBe(200);
  });

  it('rejects a V4 credential scoped to another region with 400 InvalidArgument', async () => {
    const get: RawRequest = { method: 'GET', key: 'raw/doc.json' };
    const response = await send(get, signV4(get, 'cn-shanghai'));
    expect(response.status).toBe(400);
    expect(response.text).toContain('<Code>InvalidArgument</Code>');
  });

  it('denies anonymous requests and rejects unknown authorization schemes', async () => {
    const get: RawRequest = { method: 'GET', key: 'raw/doc.json' };
    const anonymous = await send(get, {});
    expect(anonymous.status).toBe(403);
    expect(anonymous.text).toContain('<Code>AccessDenied</Code>');
    expect((await send(get, { authorization: 'Bearer abc' })).status).toBe(400);
  });
});

describe.each<Signing>(['V1', 'V4'])('ali-oss credentials, %s signatures', (signing) => {
  it('fails with SignatureDoesNotMatch when the secret is wrong, for GET, PUT and HEAD', async () => {
    const oss = client(signing, { accessKeySecret: 'wrong-secret' });
    await expect(oss.put(`${signing}/auth/x`, Buffer.from('x'))).rejects.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    await expect(oss.get(`${signing}/auth/x`)).rejects.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    // HEAD has no body: the code travels base64-encoded in x-oss-err, which ali-oss decodes.
    await expect(oss.head(`${signing}/auth/x`)).rejects.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(emulator.readObject('agui-state', `${signing}/auth/x`)).toBeUndefined();
  });

  it('fails with InvalidAccessKeyId for a key it does not know', async () => {
    await expect(client(signing, { accessKeyId: 'nobody' }).get('x')).rejects.toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
  });

  it('requires the matching STS security token for STS credentials', async () => {
    const key = `${signing}/auth/sts`;
    const withToken = client(signing, { accessKeyId: STS.accessKeyId, accessKeySecret: STS.accessKeySecret, stsToken: STS.securityToken });
    await withToken.put(key, Buffer.from('sts'));
    expect((await withToken.get(key)).content.toString()).toBe('sts');

    const withoutToken = client(signing, { accessKeyId: STS.accessKeyId, accessKeySecret: STS.accessKeySecret });
    await expect(withoutToken.get(key)).rejects.toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
    const wrongToken = client(signing, { accessKeyId: STS.accessKeyId, accessKeySecret: STS.accessKeySecret, stsToken: 'sts-token-0' });
    await expect(wrongToken.get(key)).rejects.toMatchObject({ status: 403, code: 'InvalidSecurityToken' });
    await expect(wrongToken.put(key, Buffer.from('overwritten'))).rejects.toMatchObject({ status: 403 });
    expect(emulator.readObject('agui-state', key)?.toString()).toBe('sts');
  });

  it('refuses an STS credential past its expiry with 403 SecurityTokenExpired, as OSS does, and writes nothing', async () => {
    const key = `${signing}/auth/expiring`;
    const oss = client(signing, { accessKeyId: EXPIRING.accessKeyId, accessKeySecret: EXPIRING.accessKeySecret, stsToken: EXPIRING.securityToken as string });
    EXPIRING.expiresAt = Date.now() + 60_000;
    await oss.put(key, Buffer.from('before'));
    EXPIRING.expiresAt = Date.now() - 1;
    await expect(oss.get(key)).rejects.toMatchObject({ status: 403, code: 'SecurityTokenExpired' });
    await expect(oss.put(key, Buffer.from('after'))).rejects.toMatchObject({ status: 403, code: 'SecurityTokenExpired' });
    await expect(oss.head(key)).rejects.toMatchObject({ status: 403, code: 'SecurityTokenExpired' });
    expect(emulator.readObject('agui-state', key)?.toString()).toBe('before');
  });
});

describe('V4 region', () => {
  it('accepts the region as cn-hangzhou or oss-cn-hangzhou and rejects another region', async () => {
    await client('V4', { region: 'oss-cn-hangzhou' }).put('v4/region', Buffer.from('x'));
    expect((await client('V4', { region: 'cn-hangzhou' }).get('v4/region')).content.toString()).toBe('x');
    await expect(client('V4', { region: 'cn-beijing' }).get('v4/region')).rejects.toMatchObject({ status: 400, code: 'InvalidArgument' });
  });
});
