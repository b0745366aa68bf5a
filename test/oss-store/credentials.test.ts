/**
 * Credentials per request (docs/protocol.md §9.4): FC's rotating role credentials from the x-fc-*
 * headers win over ALIBABA_CLOUD_* — but only as a complete set of three: an id and secret without
 * the token (custom.debian11/12) leave the environment's credentials in charge; an STS credential
 * needs its token (the emulator, like OSS, refuses it without); V1 and V4 signatures both work;
 * nothing secret reaches an error, a log or /health.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OssStoreProvider } from '../../lib/adapters/oss-store/provider.js';
import { StoreUnavailableError } from '../../lib/core/ports.js';
import { Secret } from '../../lib/core/secret.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { ossSettings, ossStore } from '../support/oss.js';
import { startStack } from '../support/stack.js';

const ENV_KEY = { accessKeyId: 'env-ak', accessKeySecret: 'env-secret-5150' };
const FC_ROLE = { accessKeyId: 'STS.role-1', accessKeySecret: 'role-secret-8086', securityToken: 'role-token-6502' };
const FC_ROTATED = { accessKeyId: 'STS.role-2', accessKeySecret: 'role-secret-z80', securityToken: 'role-token-68000' };

let emulator: OssEmulator;
beforeAll(async () => {
  emulator = await startOssEmulator({ credentials: [ENV_KEY, FC_ROLE, FC_ROTATED] });
});
afterAll(async () => emulator.close());

function fcHeaders(role: { accessKeyId: string; accessKeySecret: string; securityToken?: string }): Record<string, string> {
  const headers: Record<string, string> = { 'x-fc-access-key-id': role.accessKeyId, 'x-fc-access-key-secret': role.accessKeySecret };
  if (role.securityToken) headers['x-fc-security-token'] = role.securityToken;
  return headers;
}

function requestWith(headers: Record<string, string>): Request {
  return new Request('http://adapter.local/', { method: 'POST', headers });
}

function provider(withEnvKey = true): OssStoreProvider {
  return new OssStoreProvider(
    ossSettings(emulator, {
      credentials: withEnvKey ? { accessKeyId: new Secret(ENV_KEY.accessKeyId), accessKeySecret: new Secret(ENV_KEY.accessKeySecret), securityToken: undefined } : undefined,
    }),
  );
}

describe('the store for a request', () => {
  it('uses the request’s FC role credentials when present, else the environment’s', async () => {
    const stores = provider();
    const threadId = uniqueId('thread');
    const viaRole = stores.storeFor(requestWith(fcHeaders(FC_ROLE)));
    await viaRole.save(threadId, { by: 'role' }, 0);
    const viaEnv = stores.storeFor(requestWith({}));
    expect(viaEnv).not.toBe(viaRole);
    expect(await viaEnv.load(threadId)).toEqual({ document: { by: 'role' }, revision: 1 });
    expect(stores.storeFor()).toBe(viaEnv);
  });

  it('follows rotation: each credential set gets its own client; the same set reuses it', async () => {
    const stores = provider();
    const first = stores.storeFor(requestWith(fcHeaders(FC_ROLE)));
    expect(stores.storeFor(requestWith(fcHeaders(FC_ROLE)))).toBe(first);
    const rotated = stores.storeFor(requestWith(fcHeaders(FC_ROTATED)));
    expect(rotated).not.toBe(first);
    const threadId = uniqueId('thread');
    await first.save(threadId, { n: 1 }, 0);
    // The rotated store continues the thread (the writeId of revision 1 is shared knowledge).
    emulator.resetCounters();
    expect(await rotated.save(threadId, { n: 2 }, 1)).toBe(2);
    expect(emulator.counters.GetObject).toBe(0);
  });

  it('counts the headers only as a complete set: an id and secret without the token (or with an empty one) leave the environment’s credentials in charge', async () => {
    const stores = provider();
    const threadId = uniqueId('thread');
    await stores.storeFor(requestWith({})).save(threadId, { by: 'env' }, 0);
    const partialSets = [
      fcHeaders({ accessKeyId: FC_ROLE.accessKeyId, accessKeySecret: FC_ROLE.accessKeySecret }),
      { ...fcHeaders(FC_ROLE), 'x-fc-security-token': '' },
      { 'x-fc-access-key-id': FC_ROLE.accessKeyId, 'x-fc-security-token': FC_ROLE.securityToken },
      { 'x-fc-access-key-secret': FC_ROLE.accessKeySecret, 'x-fc-security-token': FC_ROLE.securityToken },
    ];
    for (const headers of partialSets) {
      const store = stores.storeFor(requestWith(headers));
      expect(store).toBe(stores.storeFor());
      expect(await store.load(threadId)).toEqual({ document: { by: 'env' }, revision: 1 });
    }
  });

  it('needs the right STS token with an STS credential: a complete set with a wrong token is refused', async () => {
    const stores = provider();
    const wrongToken = stores.storeFor(requestWith(fcHeaders({ ...FC_ROLE, securityToken: 'role-token-0' })));
    const error = await wrongToken.load(uniqueId('thread')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/HTTP 403/);
    await expect(wrongToken.save(uniqueId('thread'), {}, 0)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('answers StoreUnavailableError when no credentials reach the request at all', async () => {
    const stores = provider(false);
    await expect(stores.storeFor(requestWith({})).load('t')).rejects.toThrow(/No OSS credentials/);
    await expect(stores.storeFor().save('t', {}, 0)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('signs V1 and V4 alike, with and without an STS token', async () => {
    for (const signature of ['v1', 'v4'] as const) {
      for (const key of [ENV_KEY, FC_ROLE]) {
        const store = ossStore(emulator, { signature, ...key });
        const threadId = uniqueId('thread');
        await store.save(threadId, { signature }, 0);
        await store.save(threadId, { signature, n: 2 }, 1);
        expect(await ossStore(emulator, { signature: signature === 'v1' ? 'v4' : 'v1', ...key }).load(threadId)).toEqual({ document: { signature, n: 2 }, revision: 2 });
      }
    }
  });
});

describe('through the adapter', () => {
  it('runs a turn on the request’s role credentials, and a refused credential is 503 before any A2A call, with no secret logged', async () => {
    const stores = provider(false);
    const stack = await startStack({ store: stores.storeFor(), storeFor: (request) => stores.storeFor(request) });
    try {
      const ok = await stack.run(runBody({ text: 'hello' }), fcHeaders(FC_ROLE));
      expect(ok.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
      const refused = await stack.run(runBody({ text: 'hello' }), fcHeaders({ ...FC_ROLE, securityToken: 'expired-token-1' }));
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ error: { code: 'STATE_UNAVAILABLE' } });
      expect(stack.emulator.callsOf('SendStreamingMessage')).toHaveLength(1);
      const logs = stack.logs.join('\n');
      expect(logs).toContain('STATE_UNAVAILABLE');
      for (const secret of [FC_ROLE.accessKeySecret, FC_ROLE.securityToken, 'expired-token-1']) expect(logs).not.toContain(secret);
      const health = await (await fetch(`${stack.url}/health`)).json();
      expect(health).toMatchObject({ store: 'oss' });
      expect(JSON.stringify(health)).not.toMatch(/agui-state|127\.0\.0\.1|role-/);
    } finally {
      await stack.close();
    }
  });
});
