/**
 * A real OpenID Connect provider on loopback for the tests (docs/architecture.md §9.1): node
 * `oidc-provider` — discovery, JWKS, the authorization endpoint with its own sign-in and consent
 * pages (its development interactions: any login name signs in), the token endpoint (authorization
 * code with PKCE, refresh tokens), revocation and end-session — issuing JWT access tokens for the
 * adapter's audience (resource indicators).
 *
 * Behind one HTTP server of its own, so the tests can count what the adapter fetched (discovery,
 * keys), rotate the signing key on the same issuer (a new provider with the new key first, the old
 * one still published) and take the provider down (503 on every path). The test holds the signing
 * keys it gave the provider, so a test may also sign tokens the provider never issued — with the
 * provider's own published key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

export const AUDIENCE = 'https://agui.example.test/api';
export const OTHER_AUDIENCE = 'https://other-api.example.test';
export const TEST_CLIENT = 'agui-tests';
export const OTHER_CLIENT = 'other-app';
export const CONSOLE_CLIENT = 'agui-console';
/** Where the test clients are "redirected": never visited, the code is read from the Location header. */
const TEST_REDIRECT = 'http://127.0.0.1/callback';

export interface SigningKey {
  kid: string;
  alg: 'ES256' | 'RS256';
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  /** The private JWK as the provider holds it. */
  jwk: JWK;
}

export interface ProviderOptions {
  /** The console's redirect URIs (`<adapter>/console`), for its public client. */
  consoleRedirects?: string[];
  /** Access token lifetime, seconds (default 300). */
  accessTokenTtl?: number;
  alg?: SigningKey['alg'];
}

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string | undefined;
}

export interface TestProvider {
  issuer: string;
  /** Requests per path, since the start (`/jwks`, `/.well-known/openid-configuration`, …). */
  requests: Map<string, number>;
  /** The keys the provider publishes, its signing key first. */
  keys: SigningKey[];
  /** A real code flow (sign-in as `login`, consent) by `client`, exchanged with PKCE; tokens for `resource`. */
  tokensFor(login: string, options?: { client?: string; resource?: string }): Promise<Tokens>;
  /** Signs `claims` with the provider's current key (or `key`): a token the provider never issued, that its keys verify. */
  sign(claims: JWTPayload, options?: { key?: SigningKey; header?: Record<string, unknown> }): Promise<string>;
  /** A new signing key on the same issuer; the previous one stays published after it. */
  rotate(): Promise<SigningKey>;
  /** The console's redirect URIs, once its adapter listens (the provider is made anew: sessions are lost). */
  setConsoleRedirects(urls: string[]): void;
  /** While true, every request is answered 503. */
  down: boolean;
  close(): Promise<void>;
}

export async function newSigningKey(alg: SigningKey['alg'] = 'ES256'): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${randomBytes(6).toString('hex')}`;
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' } };
}

export async function startOidcProvider(options: ProviderOptions = {}): Promise<TestProvider> {
  const requests = new Map<string, number>();
  const keys: SigningKey[] = [await newSigningKey(options.alg)];
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const state = { down: false };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (state.down) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for the test');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings = { ...options };
  const build = () => {
    const provider = newProvider(issuer, keys, settings);
    handler = provider.callback();
  };
  build();

  return {
    issuer,
    requests,
    keys,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    tokensFor: (login, flow = {}) => codeFlow(issuer, login, flow.client ?? TEST_CLIENT, flow.resource ?? AUDIENCE),
    async sign(claims, signing = {}) {
      const key = signing.key ?? (keys[0] as SigningKey);
      return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...signing.header }).sign(key.privateKey);
    },
    setConsoleRedirects(urls) {
      settings.consoleRedirects = urls;
      build();
    },
    async rotate() {
      const key = await newSigningKey(options.alg);
      keys.unshift(key);
      build();
      return key;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function newProvider(issuer: string, keys: SigningKey[], options: ProviderOptions): Provider {
  const ttl = options.accessTokenTtl ?? 300;
  const alg = keys[0]?.alg ?? 'ES256';
  const publicClient = (client_id: string, redirect_uris: string[]): ClientMetadata => ({
    client_id,
    token_endpoint_auth_method: 'none',
    application_type: 'web',
    redirect_uris,
    post_logout_redirect_uris: redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    id_token_signed_response_alg: alg,
  });
  const provider = new Provider(issuer, {
    jwks: { keys: keys.map((key) => key.jwk) },
    clients: [publicClient(TEST_CLIENT, [TEST_REDIRECT]), publicClient(OTHER_CLIENT, [TEST_REDIRECT]), publicClient(CONSOLE_CLIENT, options.consoleRedirects ?? [TEST_REDIRECT])],
    // Any login name is an account whose `sub` is that name.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    scopes: ['openid', 'offline_access', 'agui'],
    features: {
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'agui',
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt' as const,
          jwt: { sign: { alg } },
        }),
      },
    },
    // A public client allowed the refresh grant gets a refresh token: the console's silent renewal.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { IdToken: ttl, AccessToken: ttl, RefreshToken: 24 * 3600, Session: 24 * 3600, Grant: 24 * 3600, Interaction: 600 },
    // The development sign-in pages carry no CSRF protection we need, and the provider's own cookies on http.
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });
  return provider;
}

/** A cookie jar good enough for one sign-in: every cookie is sent back, paths ignored. */
class Cookies {
  private readonly jar = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const equals = (pair ?? '').indexOf('=');
      if (equals > 0) this.jar.set((pair as string).slice(0, equals), (pair as string).slice(equals + 1));
    }
  }

  header(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

async function codeFlow(issuer: string, login: string, client: string, resource: string): Promise<Tokens> {
  const cookies = new Cookies();
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = new URL(`${issuer}/auth`);
  for (const [name, value] of Object.entries({
    client_id: client,
    response_type: 'code',
    redirect_uri: TEST_REDIRECT,
    scope: 'openid offline_access agui',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    resource,
  })) {
    authorize.searchParams.set(name, value);
  }
  const go = async (url: string, form?: Record<string, string>): Promise<string> => {
    const response = await fetch(new URL(url, issuer), {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: cookies.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    cookies.take(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) throw new Error(`${form ? 'POST' : 'GET'} ${url} answered ${response.status}: ${await response.text()}`);
    return new URL(location, issuer).toString();
  };
  // Sign-in, consent, then the redirect with the code.
  let at = await go(authorize.toString());
  for (let step = 0; step < 6 && !at.startsWith(TEST_REDIRECT); step += 1) {
    if (new URL(at).pathname.startsWith('/interaction/')) {
      const page = await fetch(at, { headers: { cookie: cookies.header() } });
      const html = await page.text();
      const prompt = html.includes('name="login"') ? 'login' : 'consent';
      at = await go(at, prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
    } else {
      at = await go(at);
    }
  }
  const code = new URL(at).searchParams.get('code');
  if (!code) throw new Error(`the sign-in ended at ${at} without a code`);
  const token = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: TEST_REDIRECT, client_id: client, code_verifier: verifier, resource }).toString(),
  });
  const body = (await token.json()) as { access_token?: string; id_token?: string; refresh_token?: string; error?: string; error_description?: string };
  if (!body.access_token || !body.id_token) throw new Error(`the token endpoint answered ${token.status}: ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, idToken: body.id_token, refreshToken: body.refresh_token };
}
