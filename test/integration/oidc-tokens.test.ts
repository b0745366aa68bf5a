/**
 * People's bearer tokens checked against a real OpenID Connect provider on loopback
 * (docs/protocol.md §1.2; test/support/oidc-provider.ts): discovery, the keys cached and followed
 * through a rotation, and every refused token answered 401 with `WWW-Authenticate: Bearer
 * error="invalid_token"` and a reason a developer can act on — never the token. The provider
 * unreachable is 503, not 401. The shared token still identifies a service beside it.
 *
 * The verifier's clock is the test's, so "expired" and "a minute later" are a number, not a wait.
 */
import { createHmac } from 'node:crypto';
import { exportJWK, exportSPKI } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OidcSettings } from '../../lib/adapters/config.js';
import { createLogger } from '../../lib/adapters/logger.js';
import { OidcTokenVerifier } from '../../lib/adapters/oidc/index.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { AUDIENCE, newSigningKey, OTHER_AUDIENCE, OTHER_CLIENT, startOidcProvider, TEST_CLIENT, type TestProvider } from '../support/oidc-provider.js';
import { type Stack, startStack } from '../support/stack.js';

const SERVICE_TOKEN = 'service-token-for-ros-3b9f';

let provider: TestProvider;
let emulator: A2AEmulator;
/** The verifier's clock: the real time, plus what a test adds. */
let skewMs = 0;
const clock = () => Date.now() + skewMs;
let stack: Stack;
let verifier: OidcTokenVerifier;
const logs: string[] = [];

function settings(overrides: Partial<OidcSettings> = {}): OidcSettings {
  return { issuer: provider.issuer, audiences: [AUDIENCE], clients: undefined, userClaim: 'sub', console: undefined, ...overrides };
}

function verifierFor(overrides: Partial<OidcSettings> = {}): OidcTokenVerifier {
  return new OidcTokenVerifier(settings(overrides), { clock, logger: createLogger((line) => logs.push(line)) });
}

beforeAll(async () => {
  [provider, emulator] = await Promise.all([startOidcProvider(), startA2AEmulator()]);
  verifier = verifierFor();
  stack = await startStack({ emulatorInstance: emulator, store: 'file', config: { authToken: SERVICE_TOKEN }, tokens: verifier });
}, 30_000);

afterAll(async () => {
  await stack?.close();
  await Promise.all([provider?.close(), emulator?.close()]);
});

interface Answer {
  status: number;
  challenge: string | null;
  error: { code: string; message: string; reason?: string } | undefined;
  text: string;
}

async function answerTo(target: Stack, token: string | undefined, body: unknown = runBody()): Promise<Answer> {
  const response = await target.post('/', body, token === undefined ? {} : { authorization: `Bearer ${token}` });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as { error: Answer['error'] }) : undefined;
  return { status: response.status, challenge: response.headers.get('www-authenticate'), error: json?.error, text };
}

function part(token: string, index: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function withPart(token: string, index: number, value: Record<string, unknown>): string {
  const parts = token.split('.');
  parts[index] = Buffer.from(JSON.stringify(value)).toString('base64url');
  return parts.join('.');
}

/** A refusal as the closing note lists it: 401, the challenge, the envelope, and the token nowhere in the answer. */
async function expectRefused(token: string, reason: string, target: Stack = stack): Promise<void> {
  const answer = await answerTo(target, token);
  expect(answer.status, answer.text).toBe(401);
  expect(answer.error?.code).toBe('UNAUTHORIZED');
  expect(answer.error?.reason).toBe(reason);
  expect(answer.challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
  expect(answer.text).not.toContain(token);
  expect(answer.text).not.toContain(token.split('.')[2] || token);
}

const now = () => Math.floor(clock() / 1000);

describe('OIDC tokens (docs/protocol.md §1.2)', { timeout: 60_000 }, () => {
  it('accepts a real access token of the provider: the discovery document and the keys are read once, then cached', async () => {
    const { accessToken } = await provider.tokensFor('alice');
    const before = { discovery: provider.requests.get('/.well-known/openid-configuration') ?? 0, jwks: provider.requests.get('/jwks') ?? 0 };

    const first = await stack.run(runBody(), { authorization: `Bearer ${accessToken}` });
    const second = await stack.run(runBody(), { authorization: `Bearer ${accessToken}` });

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(provider.requests.get('/.well-known/openid-configuration')).toBe(before.discovery + 1);
    expect(provider.requests.get('/jwks')).toBe(before.jwks + 1);
    // The person's user id is the token's `sub`, forwarded to the kernel as theirs.
    expect(stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params).toMatchObject({ message: { metadata: { iac_code: { user_id: 'alice' } } } });
  });

  it('accepts an ID token too when its audience (the client) is configured', async () => {
    const { idToken } = await provider.tokensFor('alice');
    const target = await startStack({ emulatorInstance: emulator, tokens: verifierFor({ audiences: [AUDIENCE, TEST_CLIENT] }) });
    try {
      expect((await target.run(runBody(), { authorization: `Bearer ${idToken}` })).status).toBe(200);
      await expectRefused(idToken, 'token_wrong_audience');
    } finally {
      await target.close();
    }
  });

  it('keeps identifying a service by the shared token, and asks for a token when none is sent', async () => {
    expect((await stack.run(runBody(), { authorization: `Bearer ${SERVICE_TOKEN}` })).status).toBe(200);
    const none = await answerTo(stack, undefined);
    expect(none).toMatchObject({ status: 401, challenge: 'Bearer', error: { code: 'UNAUTHORIZED', message: 'A valid bearer token is required.' } });
    expect(none.error?.reason).toBeUndefined();
  });

  it('refuses what is no JWT (nor the service token), an unsigned token and an HMAC signed with the provider’s public key', async () => {
    await expectRefused(`wrong-${SERVICE_TOKEN}`, 'token_malformed');
    const { accessToken } = await provider.tokensFor('alice');
    const claims = part(accessToken, 1);
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    await expectRefused(unsigned, 'token_algorithm_refused');
    // The classic confusion: HS256 keyed with the public key a verifier would otherwise trust.
    const key = provider.keys[0];
    if (!key) throw new Error('no key');
    const publicKey = await crypto.subtle.importKey('jwk', { ...(await exportJWK(key.privateKey)), d: undefined }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
    for (const secret of [await exportSPKI(publicKey), JSON.stringify((await exportJWK(publicKey)) as object)]) {
      const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: key.kid, typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      await expectRefused(`${header}.${payload}.${signature}`, 'token_algorithm_refused');
    }
  });

  it('refuses a token naming no key, or a key the provider does not publish', async () => {
    await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 300 }, { header: { kid: undefined } }), 'token_key_missing');
    const stranger = await newSigningKey();
    await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 300 }, { key: stranger }), 'token_key_unknown');
  });

  it('refuses a tampered payload, another audience, another issuer, and tokens without an expiry or a user id', async () => {
    const { accessToken } = await provider.tokensFor('alice');
    await expectRefused(withPart(accessToken, 1, { ...part(accessToken, 1), sub: 'mallory' }), 'token_signature_invalid');
    await expectRefused((await provider.tokensFor('alice', { resource: OTHER_AUDIENCE })).accessToken, 'token_wrong_audience');
    // A real token of another provider, and one signed with this provider's key but naming another issuer.
    const elsewhere = await startOidcProvider();
    try {
      await expectRefused((await elsewhere.tokensFor('alice')).accessToken, 'token_wrong_issuer');
    } finally {
      await elsewhere.close();
    }
    await expectRefused(await provider.sign({ iss: 'https://idp.example.com', aud: AUDIENCE, sub: 'alice', exp: now() + 300 }), 'token_wrong_issuer');
    await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice' }), 'token_claims_invalid');
    await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, exp: now() + 300 }), 'token_user_claim_missing');
  });

  it('refuses an expired token and one not valid yet — each past the 30-second tolerance', async () => {
    const { accessToken } = await provider.tokensFor('alice');
    const exp = part(accessToken, 1)['exp'] as number;
    try {
      skewMs = (exp - Date.now() / 1000 + 20) * 1000;
      expect((await answerTo(stack, accessToken)).status).toBe(200);
      skewMs = (exp - Date.now() / 1000 + 40) * 1000;
      await expectRefused(accessToken, 'token_expired');
    } finally {
      skewMs = 0;
    }
    await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 600, nbf: now() + 120 }), 'token_not_yet_valid');
    await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 600, iat: now() + 120 }), 'token_not_yet_valid');
  });

  it('refuses a token of a client outside IAC_CODE_AGUI_OIDC_CLIENTS, and reads the user id from IAC_CODE_AGUI_OIDC_USER_CLAIM', async () => {
    const target = await startStack({ emulatorInstance: emulator, tokens: verifierFor({ clients: [TEST_CLIENT] }) });
    const byEmail = await startStack({ emulatorInstance: emulator, tokens: verifierFor({ userClaim: 'email' }) });
    try {
      expect((await answerTo(target, (await provider.tokensFor('alice')).accessToken)).status).toBe(200);
      await expectRefused((await provider.tokensFor('alice', { client: OTHER_CLIENT })).accessToken, 'token_client_refused', target);
      await expectRefused((await provider.tokensFor('alice')).accessToken, 'token_user_claim_missing', byEmail);
      const withEmail = await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', email: 'alice@example.com', exp: now() + 300 });
      expect((await answerTo(byEmail, withEmail)).status).toBe(200);
    } finally {
      await Promise.all([target.close(), byEmail.close()]);
    }
  });

  it('refuses a declared userId that is not the signed-in person’s, naming the field; the person’s own id or none is fine', async () => {
    const { accessToken } = await provider.tokensFor('alice');
    const other = await answerTo(stack, accessToken, runBody({ iacCode: { userId: 'bob' } }));
    expect(other).toMatchObject({
      status: 400,
      error: { code: 'INVALID_INPUT', message: 'userId must be the signed-in user id, or absent.' },
    });
    expect(JSON.parse(other.text).error.details).toEqual([{ path: 'forwardedProps.iacCode.userId', message: 'Must be the signed-in user id (the token’s claim), or absent.' }]);
    const snake = await answerTo(stack, accessToken, runBody({ iacCode: { user_id: 'bob' } }));
    expect(JSON.parse(snake.text).error.details).toEqual([{ path: 'forwardedProps.iacCode.user_id', message: 'Must be the signed-in user id (the token’s claim), or absent.' }]);
    expect((await answerTo(stack, accessToken, runBody({ threadId: uniqueId('own'), iacCode: { userId: 'alice' } }))).status).toBe(200);
  });

  // From here on the provider signs with a rotated key: the file's main verifier, which fetched keys for
  // an unknown id less than a minute ago, would refuse its tokens until that minute is over.
  it('follows a key rotation within one token, and fetches keys for unknown ids at most once a minute', async () => {
    const rotating = verifierFor();
    const target = await startStack({ emulatorInstance: emulator, tokens: rotating });
    try {
      expect((await answerTo(target, (await provider.tokensFor('alice')).accessToken)).status).toBe(200);
      expect(rotating.keys.fetches).toBe(1);

      await provider.rotate();
      const rotated = (await provider.tokensFor('alice')).accessToken;
      expect(part(rotated, 0)['kid']).toBe(provider.keys[0]?.kid);
      expect((await answerTo(target, rotated)).status).toBe(200);
      expect(rotating.keys.fetches).toBe(2);

      // Another unknown id within the minute: refused from the keys in hand, the provider not asked.
      const stranger = await newSigningKey();
      const forged = await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 300 }, { key: stranger });
      await expectRefused(forged, 'token_key_unknown', target);
      expect(rotating.keys.fetches).toBe(2);
      // A minute later the keys are fetched again for it (still unknown: refused).
      skewMs = 61_000;
      await expectRefused(await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 300 }, { key: stranger }), 'token_key_unknown', target);
      expect(rotating.keys.fetches).toBe(3);
    } finally {
      skewMs = 0;
      await target.close();
    }
  });

  it('answers 503 with a reason, not 401, when the provider cannot be reached; keys in hand go on verifying', async () => {
    const { accessToken } = await provider.tokensFor('alice');
    const unreachable = await startStack({
      emulatorInstance: emulator,
      tokens: new OidcTokenVerifier(settings({ issuer: 'http://127.0.0.1:9' }), { clock, logger: createLogger((line) => logs.push(line)) }),
    });
    const cached = verifierFor();
    const target = await startStack({ emulatorInstance: emulator, tokens: cached });
    try {
      // A token naming the unreachable issuer, signed by a key it would publish.
      const forUnreachable = await provider.sign({ iss: 'http://127.0.0.1:9', aud: AUDIENCE, sub: 'alice', exp: now() + 300 });
      const answer = await answerTo(unreachable, forUnreachable);
      expect(answer).toMatchObject({
        status: 503,
        challenge: null,
        error: { code: 'IDENTITY_PROVIDER_UNAVAILABLE', message: 'The identity provider cannot be reached. Retry later.' },
      });
      expect(unreachable.logs.join('\n')).toContain('GET http://127.0.0.1:9/.well-known/openid-configuration failed');

      expect((await answerTo(target, accessToken)).status).toBe(200);
      provider.down = true;
      expect((await answerTo(target, accessToken)).status).toBe(200);
      // An unknown key while the provider is down: neither accepted nor refused.
      const stranger = await newSigningKey();
      const unknown = await answerTo(target, await provider.sign({ iss: provider.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 300 }, { key: stranger }));
      expect(unknown).toMatchObject({ status: 503, error: { code: 'IDENTITY_PROVIDER_UNAVAILABLE' } });
    } finally {
      provider.down = false;
      await Promise.all([unreachable.close(), target.close()]);
    }
  });

  it('never writes a token to the logs', () => {
    const everything = [...logs, ...stack.logs].join('\n');
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    expect(everything).not.toContain(SERVICE_TOKEN);
  });
});
