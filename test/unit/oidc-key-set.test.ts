/**
 * The identity provider's key cache (lib/adapters/oidc/key-set.ts; docs/protocol.md §1.2), on a
 * clock of the test's: read with the first token, read again once older than its maximum age (and,
 * while that fails, the keys in hand kept, the failure retried at most once per cooldown), an
 * unknown key id reading it again at most once per cooldown, concurrent lookups sharing one read,
 * symmetric and private members never kept. The provider itself is test/integration/oidc-tokens.test.ts's.
 */
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { RemoteKeySet } from '../../lib/adapters/oidc/key-set.js';
import { IdentityProviderUnavailableError, TokenRefusedError } from '../../lib/core/ports.js';

let first: JWK;
let second: JWK;

beforeAll(async () => {
  const make = async (kid: string) => ({ ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid, alg: 'ES256', use: 'sig' });
  [first, second] = await Promise.all([make('first'), make('second')]);
});

function keySet(published: () => unknown) {
  const state = { now: 1_000_000, reads: 0, failing: false, stale: [] as unknown[] };
  const keys = new RemoteKeySet({
    fetchKeys: async () => {
      state.reads += 1;
      if (state.failing) throw new IdentityProviderUnavailableError('GET jwks failed');
      return published();
    },
    clock: () => state.now,
    maxAgeMs: 600_000,
    cooldownMs: 60_000,
    onStaleRefreshFailure: (error) => state.stale.push(error),
  });
  return { keys, state };
}

const header = (kid: string) => ({ alg: 'ES256', kid });

describe('the provider’s key cache', () => {
  it('reads the keys once for every token while they are fresh, and shares a read in flight', async () => {
    const { keys, state } = keySet(() => ({ keys: [first] }));
    await Promise.all([keys.key(header('first')), keys.key(header('first')), keys.key(header('first'))]);
    state.now += 599_000;
    await keys.key(header('first'));
    expect(state.reads).toBe(1);
    expect(keys.fetches).toBe(1);
  });

  it('reads them again once older than their maximum age; while that fails it keeps verifying with the keys in hand, retrying once a minute', async () => {
    let published: JWK[] = [first];
    const { keys, state } = keySet(() => ({ keys: published }));
    await keys.key(header('first'));
    state.now += 600_000;
    state.failing = true;
    await expect(keys.key(header('first'))).resolves.toBeDefined();
    expect(state.stale).toHaveLength(1);
    await keys.key(header('first'));
    expect(state.reads).toBe(2);
    state.now += 60_000;
    state.failing = false;
    // The provider withdrew the first key: the next read, a minute later, stops trusting it.
    published = [second];
    await keys.key(header('second'));
    expect(state.reads).toBe(3);
    await expect(keys.key(header('first'))).rejects.toMatchObject({ reason: 'token_key_unknown' });
  });

  it('reads them again for an unknown key id at most once a minute', async () => {
    let published: JWK[] = [first];
    const { keys, state } = keySet(() => ({ keys: published }));
    await keys.key(header('first'));
    published = [second, first];
    await keys.key(header('second'));
    expect(state.reads).toBe(2);
    await expect(keys.key(header('made-up'))).rejects.toBeInstanceOf(TokenRefusedError);
    expect(state.reads).toBe(2);
    state.now += 60_000;
    await expect(keys.key(header('made-up'))).rejects.toMatchObject({ reason: 'token_key_unknown' });
    expect(state.reads).toBe(3);
  });

  it('answers the provider unavailable when the first read fails, and tries again with the next token', async () => {
    const { keys, state } = keySet(() => ({ keys: [first] }));
    state.failing = true;
    await expect(keys.key(header('first'))).rejects.toBeInstanceOf(IdentityProviderUnavailableError);
    state.failing = false;
    await expect(keys.key(header('first'))).resolves.toBeDefined();
  });

  it('keeps no symmetric key, no private key, and no key without an id; a key of another algorithm is unknown for this one', async () => {
    const privateKey = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)), kid: 'private', alg: 'ES256' };
    const { keys } = keySet(() => ({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'symmetric', alg: 'HS256' }, privateKey, { ...first, kid: undefined }, first] }));
    await keys.key(header('first'));
    for (const kid of ['symmetric', 'private']) await expect(keys.key(header(kid))).rejects.toMatchObject({ reason: 'token_key_unknown' });
    await expect(keys.key({ alg: 'RS256', kid: 'first' })).rejects.toMatchObject({ reason: 'token_key_unknown' });
  });

  it('answers the provider unavailable for a document that is no key set', async () => {
    const { keys } = keySet(() => ({ notKeys: true }));
    await expect(keys.key(header('first'))).rejects.toBeInstanceOf(IdentityProviderUnavailableError);
  });
});
