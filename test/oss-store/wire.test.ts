/**
 * What the driver puts on the wire (docs/architecture.md §3.5; the "done when": nothing relies on a
 * conditional PUT header other than x-oss-forbid-overwrite). A recording loopback proxy sits
 * between the real ali-oss client and the OSS emulator and keeps every request's method, path and
 * headers; a full history — creates, reads, verifications, conflicts, lost answers, prunes — is
 * then checked request by request.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AliOssObjects } from '../../lib/adapters/oss-store/objects.js';
import { OssThreadStore } from '../../lib/adapters/oss-store/thread-store.js';
import { StoreConflictError } from '../../lib/core/ports.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { uniqueId } from '../support/fixtures.js';
import { objectKeyOf, TEST_BUCKET, TEST_KEY } from '../support/oss.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

let emulator: OssEmulator;
let proxy: Server;
let proxyEndpoint: string;
const recorded: Recorded[] = [];

beforeAll(async () => {
  emulator = await startOssEmulator();
  proxy = createServer((req, res) => {
    recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const upstream = httpRequest({ host: '127.0.0.1', port: emulator.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyEndpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await emulator.close();
});

function store(signature: 'v1' | 'v4'): OssThreadStore {
  const objects = new AliOssObjects(
    { endpoint: proxyEndpoint, bucket: TEST_BUCKET, region: 'cn-hangzhou', signature, timeoutMs: 2_000, pathStyle: true },
    { ...TEST_KEY, securityToken: undefined },
  );
  return new OssThreadStore(objects, { prefix: 'agui', keepRevisions: 2, backoffMs: 1 });
}

it('sends no conditional header but x-oss-forbid-overwrite: true, which every PUT carries', async () => {
  for (const signature of ['v1', 'v4'] as const) {
    const [writer, stalled] = [store(signature), store(signature)];
    const threadId = uniqueId('thread');
    await writer.save(threadId, { n: 1 }, 0);
    await stalled.load(threadId);
    emulator.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), dropAfterApply: true });
    for (let revision = 2; revision <= 6; revision += 1) await writer.save(threadId, { n: revision }, revision - 1);
    await expect(writer.save(threadId, { n: 'stale' }, 3)).rejects.toBeInstanceOf(StoreConflictError);
    await expect(stalled.save(threadId, { n: 'stalled' }, 1)).rejects.toBeInstanceOf(StoreConflictError);
    expect(await writer.load(threadId)).toMatchObject({ revision: 6 });
  }
  const methods = new Set(recorded.map((entry) => entry.method));
  expect([...methods].sort()).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
  for (const entry of recorded) {
    const conditional = Object.keys(entry.headers).filter((name) => /^(if-|x-oss-copy-source-if-)/.test(name));
    expect(conditional, `${entry.method} ${entry.url}`).toEqual([]);
    if (entry.method === 'PUT') {
      expect(entry.headers['x-oss-forbid-overwrite']).toBe('true');
      expect(entry.headers['content-md5']).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    } else {
      expect(entry.headers['x-oss-forbid-overwrite']).toBeUndefined();
    }
  }
});
