/**
 * PutObject / GetObject / HeadObject / DeleteObject through the real ali-oss client, in both
 * signing modes (docs/architecture.md §9.3): quoted upper-case MD5 ETags, forbid-overwrite → 409,
 * conditional PUT → NotImplemented with nothing written, conditional GET/HEAD → 412/304, OSS's
 * 404s and the 204 of DeleteObject.
 */
import { createHash } from 'node:crypto';
import type OSS from 'ali-oss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { type ClientOptions, emulatorClient, type Signing } from './ali-oss-client.js';

/** ali-oss reads `sldEnable`, but @types/ali-oss 6.23.3 does not declare it. */

function client(emulator: OssEmulator, signing: Signing, extra: Partial<ClientOptions> = {}): OSS {
  return emulatorClient(emulator.endpoint, signing, extra);
}

function quotedMd5(text: string): string {
  return `"${createHash('md5').update(text).digest('hex').toUpperCase()}"`;
}

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator({ buckets: ['agui-state', 'other-bucket'] });
});
afterAll(async () => {
  await emulator.close();
});

describe.each<Signing>(['V1', 'V4'])('objects, %s signatures', (signing) => {
  const key = (name: string): string => `${signing}/objects/${name}`;

  it('stores bytes and answers a quoted upper-case MD5 ETag, Content-Type and a request id', async () => {
    const oss = client(emulator, signing);
    const body = '{"revision":1,"nonce":"é✓"}';
    const put = await oss.put(key('doc.json'), Buffer.from(body), { mime: 'application/json' });
    expect(put.res.status).toBe(200);
    const headers = put.res.headers as Record<string, string>;
    expect(headers.etag).toBe(quotedMd5(body));
    expect(headers.etag).toMatch(/^"[0-9A-F]{32}"$/);
    expect(headers['x-oss-request-id']).toMatch(/^[0-9A-F]{24}$/);
    expect(emulator.readObject('agui-state', key('doc.json'))?.toString('utf8')).toBe(body);

    const got = await oss.get(key('doc.json'));
    expect(got.content.toString('utf8')).toBe(body);
    const getHeaders = got.res.headers as Record<string, string>;
    expect(getHeaders['content-type']).toBe('application/json');
    expect(getHeaders['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(getHeaders.etag).toBe(quotedMd5(body));
    expect(new Date(getHeaders['last-modified'] ?? '').getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers HEAD with the object headers and user metadata but no body', async () => {
    const oss = client(emulator, signing);
    await oss.put(key('meta.txt'), Buffer.from('12345'), { mime: 'text/plain', meta: { writer: 'w-1', uid: 1, pid: 2 } });
    const head = await oss.head(key('meta.txt'));
    expect(head.status).toBe(200);
    expect(head.meta).toMatchObject({ writer: 'w-1' });
    const headers = head.res.headers as Record<string, string>;
    expect(headers['content-length']).toBe('5');
    expect(headers['content-type']).toBe('text/plain');
    expect(headers.etag).toBe(quotedMd5('12345'));
  });

  it('keeps keys with spaces, plus signs and non-ASCII characters intact', async () => {
    const oss = client(emulator, signing);
    const odd = key('a b+c/ü 漢字 (1).json');
    await oss.put(odd, Buffer.from('x'));
    expect(emulator.objectKeys()).toContain(odd);
    expect((await oss.get(odd)).content.toString()).toBe('x');
  });

  it('refuses to overwrite with x-oss-forbid-overwrite: true (409 FileAlreadyExists) and keeps the first bytes', async () => {
    const oss = client(emulator, signing);
    const createOnly = { headers: { 'x-oss-forbid-overwrite': 'true' } };
    await oss.put(key('rev-1'), Buffer.from('first'), createOnly);
    await expect(oss.put(key('rev-1'), Buffer.from('second'), createOnly)).rejects.toMatchObject({ status: 409, code: 'FileAlreadyExists' });
    expect(emulator.readObject('agui-state', key('rev-1'))?.toString()).toBe('first');
    // Without the header (or with false) OSS overwrites.
    await oss.put(key('rev-1'), Buffer.from('third'), { headers: { 'x-oss-forbid-overwrite': 'false' } });
    expect(emulator.readObject('agui-state', key('rev-1'))?.toString()).toBe('third');
  });

  it('rejects an x-oss-forbid-overwrite value other than true/false with 400 InvalidArgument', async () => {
    const oss = client(emulator, signing);
    await expect(oss.put(key('bad-flag'), Buffer.from('x'), { headers: { 'x-oss-forbid-overwrite': 'yes' } })).rejects.toMatchObject({
      status: 400,
      code: 'InvalidArgument',
    });
    expect(emulator.readObject('agui-state', key('bad-flag'))).toBeUndefined();
  });

  it.each(['If-Match', 'If-None-Match', 'If-Modified-Since', 'If-Unmodified-Since'])('answers a PutObject carrying %s with 400 NotImplemented and writes nothing', async (name) => {
    const oss = client(emulator, signing);
    await oss.put(key('cas-target'), Buffer.from('original'));
    const value = name.startsWith('If-M') || name.startsWith('If-N') ? quotedMd5('original') : new Date().toUTCString();
    await expect(oss.put(key('cas-target'), Buffer.from('replacement'), { headers: { [name]: value } })).rejects.toMatchObject({
      status: 400,
      code: 'NotImplemented',
      ecCode: '0017-00000245',
    });
    await expect(oss.put(key(`cas-new-${name}`), Buffer.from('new'), { headers: { [name]: value } })).rejects.toMatchObject({ code: 'NotImplemented' });
    expect(emulator.readObject('agui-state', key('cas-target'))?.toString()).toBe('original');
    expect(emulator.readObject('agui-state', key(`cas-new-${name}`))).toBeUndefined();
  });

  it('evaluates If-Match and If-None-Match on GET and HEAD (412 / 304)', async () => {
    const oss = client(emulator, signing);
    await oss.put(key('cond'), Buffer.from('v1'));
    const etag = quotedMd5('v1');
    const other = quotedMd5('v2');

    expect((await oss.get(key('cond'), { headers: { 'If-Match': etag } })).content.toString()).toBe('v1');
    await expect(oss.get(key('cond'), { headers: { 'If-Match': other } })).rejects.toMatchObject({ status: 412, code: 'PreconditionFailed' });
    await expect(oss.head(key('cond'), { headers: { 'If-Match': other } })).rejects.toMatchObject({ status: 412, code: 'PreconditionFailed' });

    expect((await oss.get(key('cond'), { headers: { 'If-None-Match': etag } })).res.status).toBe(304);
    expect((await oss.head(key('cond'), { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await oss.get(key('cond'), { headers: { 'If-None-Match': other } })).res.status).toBe(200);
  });

  it('answers 404 NoSuchKey for GET and HEAD of a missing key, and 204 for DELETE either way', async () => {
    const oss = client(emulator, signing);
    await expect(oss.get(key('missing'))).rejects.toMatchObject({ status: 404, code: 'NoSuchKey' });
    await expect(oss.head(key('missing'))).rejects.toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect((await oss.delete(key('missing'))).res.status).toBe(204);

    await oss.put(key('doomed'), Buffer.from('x'));
    expect((await oss.delete(key('doomed'))).res.status).toBe(204);
    expect(emulator.readObject('agui-state', key('doomed'))).toBeUndefined();
    await expect(oss.get(key('doomed'))).rejects.toMatchObject({ code: 'NoSuchKey' });
  });

  it('answers 404 NoSuchBucket for a bucket it does not have', async () => {
    const oss = client(emulator, signing, { bucket: 'no-such-bucket' });
    await expect(oss.get('x')).rejects.toMatchObject({ status: 404, code: 'NoSuchBucket' });
    await expect(oss.put('x', Buffer.from('x'))).rejects.toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  it('keeps buckets apart', async () => {
    await client(emulator, signing, { bucket: 'other-bucket' }).put(key('shared-name'), Buffer.from('other'));
    expect(emulator.readObject('other-bucket', key('shared-name'))?.toString()).toBe('other');
    expect(emulator.readObject('agui-state', key('shared-name'))).toBeUndefined();
  });

  it('refuses a body whose Content-MD5 does not match with 400 InvalidDigest', async () => {
    const oss = client(emulator, signing);
    const wrongMd5 = createHash('md5').update('something else').digest('base64');
    await expect(oss.put(key('corrupt'), Buffer.from('payload'), { headers: { 'Content-MD5': wrongMd5 } })).rejects.toMatchObject({
      status: 400,
      code: 'InvalidDigest',
    });
    expect(emulator.readObject('agui-state', key('corrupt'))).toBeUndefined();
  });

  it('also serves virtual-host style requests (ali-oss without sldEnable)', async () => {
    // With an IP endpoint and no sldEnable, ali-oss sends `/key` and Host: agui-state.<region host>.
    const oss = client(emulator, signing, { sldEnable: false });
    await oss.put(key('vhost'), Buffer.from('virtual'));
    expect(emulator.readObject('agui-state', key('vhost'))?.toString()).toBe('virtual');
    expect((await client(emulator, signing).get(key('vhost'))).content.toString()).toBe('virtual');
  });
});
