/**
 * ListObjects (V1), ListObjectsV2 and DeleteMultipleObjects through the real ali-oss client, in
 * both signing modes (docs/architecture.md §9.3): UTF-8 byte order, prefix, delimiter
 * and common prefixes, pagination with NextMarker / NextContinuationToken, KeyCount, fetch-owner,
 * and the multi-delete's verbose and quiet answers.
 */
import type OSS from 'ali-oss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { emulatorClient, type Signing } from './ali-oss-client.js';

function client(emulator: OssEmulator, signing: Signing, bucket = 'agui-state'): OSS {
  return emulatorClient(emulator.endpoint, signing, { bucket });
}

/** The raw XML ali-oss received (urllib keeps it on res.data). */
function rawXml(res: OSS.NormalSuccessResponse): string {
  return String((res as unknown as { data: Buffer }).data);
}

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator();
});
afterAll(async () => {
  await emulator.close();
});

describe.each<Signing>(['V1', 'V4'])('listing and multi-delete, %s signatures', (signing) => {
  const root = `${signing}/list/`;
  // Includes a pair whose UTF-16 order differs from their UTF-8 byte order (U+FF61 vs U+1F600).
  const names = ['a/1', 'a/2', 'a/sub/x', 'a/sub/y', 'b/1', 'c', 'z/\u{FF61}', 'z/\u{1F600}'];
  const keys = names.map((name) => root + name);

  beforeAll(async () => {
    const oss = client(emulator, signing);
    for (const key of [...keys].reverse()) await oss.put(key, Buffer.from(key));
  });

  it('lists keys in UTF-8 byte order under a prefix (V1 and V2)', async () => {
    const oss = client(emulator, signing);
    const v1 = await oss.list({ prefix: root, 'max-keys': 1000 }, {});
    expect(v1.objects.map((o) => o.name)).toEqual(keys);
    expect(v1.isTruncated).toBe(false);
    const v2 = await oss.listV2({ prefix: root, 'max-keys': '1000' });
    expect(v2.objects.map((o) => o.name)).toEqual(keys);
    expect(v2.keyCount).toBe(keys.length);
    // The byte-order pair really is ordered differently by JavaScript's default sort.
    expect([...names.slice(-2)].sort()).not.toEqual(names.slice(-2));
  });

  it('pages through V1 with max-keys and NextMarker', async () => {
    const oss = client(emulator, signing);
    const seen: string[] = [];
    let marker: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await oss.list({ prefix: root, 'max-keys': 3, ...(marker === undefined ? {} : { marker }) }, {});
      pages += 1;
      seen.push(...page.objects.map((o) => o.name));
      if (!page.isTruncated) {
        expect(page.nextMarker).toBeNull();
        break;
      }
      expect(page.nextMarker).toBe(page.objects.at(-1)?.name);
      marker = page.nextMarker ?? undefined;
    }
    expect(seen).toEqual(keys);
    expect(pages).toBe(3);
  });

  it('pages through V2 with continuation tokens and start-after', async () => {
    const oss = client(emulator, signing);
    const seen: string[] = [];
    let token: string | undefined;
    for (;;) {
      const page = await oss.listV2({ prefix: root, 'max-keys': '3', ...(token === undefined ? {} : { 'continuation-token': token }) });
      seen.push(...page.objects.map((o) => o.name));
      expect(page.keyCount).toBe(page.objects.length);
      if (!page.isTruncated) break;
      expect(page.nextContinuationToken).toEqual(expect.any(String));
      token = page.nextContinuationToken ?? undefined;
    }
    expect(seen).toEqual(keys);

    const after = await oss.listV2({ prefix: root, 'start-after': `${root}b/1` });
    expect(after.objects.map((o) => o.name)).toEqual(keys.slice(keys.indexOf(`${root}b/1`) + 1));
  });

  it('rolls keys up into CommonPrefixes with a delimiter, counting them against max-keys', async () => {
    const oss = client(emulator, signing);
    const v1 = await oss.list({ prefix: root, delimiter: '/', 'max-keys': 100 }, {});
    expect(v1.objects.map((o) => o.name)).toEqual([`${root}c`]);
    expect(v1.prefixes).toEqual([`${root}a/`, `${root}b/`, `${root}z/`]);

    const inside = await oss.listV2({ prefix: `${root}a/`, delimiter: '/' });
    expect(inside.objects.map((o) => o.name)).toEqual([`${root}a/1`, `${root}a/2`]);
    expect(inside.prefixes).toEqual([`${root}a/sub/`]);
    expect(inside.keyCount).toBe(3);

    // Page size 2 over [a/, b/, c, z/]: the common prefixes count like keys and are not repeated.
    const collected: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await oss.list({ prefix: root, delimiter: '/', 'max-keys': 2, ...(marker === undefined ? {} : { marker }) }, {});
      collected.push(...(page.prefixes ?? []), ...page.objects.map((o) => o.name));
      if (!page.isTruncated) break;
      marker = page.nextMarker ?? undefined;
    }
    expect(collected.sort()).toEqual([`${root}a/`, `${root}b/`, `${root}c`, `${root}z/`]);
  });

  it('includes Owner in V2 only with fetch-owner=true, and always in V1', async () => {
    const oss = client(emulator, signing);
    const without = await oss.listV2({ prefix: `${root}c` });
    expect(without.objects[0]?.owner).toBeNull();
    const withOwner = await oss.listV2({ prefix: `${root}c`, 'fetch-owner': true } as OSS.ListV2ObjectsQuery);
    expect(withOwner.objects[0]?.owner).toEqual({ id: expect.any(String), displayName: expect.any(String) });
    const v1 = await oss.list({ prefix: `${root}c`, 'max-keys': 10 }, {});
    expect(v1.objects[0]?.owner?.id).toEqual(expect.any(String));
  });

  it('answers the documented ListBucketResult elements', async () => {
    const oss = client(emulator, signing);
    const v1 = rawXml((await oss.list({ prefix: `${root}c`, 'max-keys': 10 }, {})).res);
    expect(v1).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<ListBucketResult><Name>agui-state<\/Name><Prefix>/);
    expect(v1).toContain('<Marker></Marker><MaxKeys>10</MaxKeys><Delimiter></Delimiter><IsTruncated>false</IsTruncated>');
    expect(v1).toMatch(/<Contents><Key>[^<]+<\/Key><LastModified>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z<\/LastModified><ETag>"[0-9A-F]{32}"<\/ETag>/);
    expect(v1).toContain('<Type>Normal</Type><Size>');
    expect(v1).toContain('<StorageClass>Standard</StorageClass>');
    const v2 = rawXml((await oss.listV2({ prefix: `${root}a/`, 'max-keys': '1' })).res);
    expect(v2).toContain('<IsTruncated>true</IsTruncated><NextContinuationToken>');
    expect(v2).toContain('<KeyCount>1</KeyCount>');
  });

  it('URL-encodes names with encoding-type=url', async () => {
    const oss = client(emulator, signing);
    const xml = rawXml((await oss.listV2({ prefix: `${root}z/`, 'encoding-type': 'url' } as OSS.ListV2ObjectsQuery)).res);
    expect(xml).toContain('<EncodingType>url</EncodingType>');
    expect(xml).toContain(`<Key>${encodeURIComponent(`${root}z/\u{FF61}`)}</Key>`);
  });

  it('rejects max-keys outside 1..1000 with 400 InvalidArgument', async () => {
    const oss = client(emulator, signing);
    await expect(oss.list({ 'max-keys': 1001 }, {})).rejects.toMatchObject({ status: 400, code: 'InvalidArgument' });
    await expect(oss.listV2({ 'max-keys': '0' })).rejects.toMatchObject({ status: 400, code: 'InvalidArgument' });
  });

  it('answers 404 NoSuchBucket when listing a bucket it does not have', async () => {
    await expect(client(emulator, signing, 'absent-bucket').listV2({})).rejects.toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  it('deletes several keys at once, reporting each (missing keys count as deleted)', async () => {
    const oss = client(emulator, signing);
    const victims = [`${root}del/1`, `${root}del/2 & <3>`];
    for (const key of victims) await oss.put(key, Buffer.from('x'));
    const result = await oss.deleteMulti([...victims, `${root}del/never-existed`]);
    expect(result.deleted).toEqual([{ Key: victims[0] }, { Key: victims[1] }, { Key: `${root}del/never-existed` }]);
    for (const key of victims) expect(emulator.readObject('agui-state', key)).toBeUndefined();
  });

  it('answers quiet multi-deletes without listing the deleted keys', async () => {
    const oss = client(emulator, signing);
    const victims = [`${root}quiet/1`, `${root}quiet/2`];
    for (const key of victims) await oss.put(key, Buffer.from('x'));
    const result = await oss.deleteMulti(victims, { quiet: true });
    expect(result.res.status).toBe(200);
    expect(result.deleted).toEqual([]);
    expect(emulator.objectKeys().filter((key) => key.startsWith(`${root}quiet/`))).toEqual([]);
  });
});
