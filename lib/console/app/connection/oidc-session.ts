/**
 * A person signed in with the adapter's identity provider (docs/architecture.md §4.7,
 * docs/protocol.md §1.2), with oauth4webapi: the authorization code flow with PKCE (S256), `state`
 * and `nonce`, for the console's public client — the redirect back lands on /console itself; the
 * code is exchanged at the provider's token endpoint and the ID token's claims checked; renewal
 * with the refresh token, silently, before the access token expires; sign-out revokes the refresh
 * token and ends the provider's session when it offers an end-session endpoint.
 *
 * Everything is kept in this tab's session storage only, as the typed token is
 * (session-token.ts): gone with the tab, never in local storage or a URL. The bearer the adapter
 * gets is whichever token names one of the adapter's audiences: the access token of a provider that
 * issues JWT access tokens for the adapter (a resource indicator), else the ID token — whose
 * audience is the console's client (IDaaS' access tokens are for IDaaS' own APIs). Renewal follows
 * the expiry of the token sent.
 */
import * as oauth from 'oauth4webapi';
import type { SignInConfig } from './console-config.js';
import { forgetToken, saveToken } from './session-token.js';

const SESSION = 'iac-code-console.sign-in';
const PENDING = 'iac-code-console.sign-in.pending';
/** Renewal starts this long before expiry at most, and never before half the lifetime. */
const RENEW_MARGIN_MS = 60_000;

type Available = Exclude<SignInConfig, { unavailable: true }>;

interface Session {
  accessToken: string;
  idToken: string;
  refreshToken: string | undefined;
  /** Epoch ms: when the access token expires. */
  expiresAt: number;
  /** Epoch ms: when renewal starts. */
  renewAt: number;
  /** Who signed in, for the top bar. */
  name: string;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  /** Text the person had sent when the sign-in was asked for, put back in the box on return. */
  draft?: string;
}

/** A sign-in that failed, in words for the person. */
export class SignInError extends Error {
  override readonly name = 'SignInError';
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function isLoopbackHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && (hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.'));
}

export class OidcSession {
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly redirectUri: string;
  /** Plain http only to this machine (the adapter allows no other, lib/adapters/oidc/discovery.ts). */
  private readonly http: { [oauth.allowInsecureRequests]?: boolean };

  constructor(private readonly config: Available) {
    this.as = {
      issuer: config.issuer,
      authorization_endpoint: config.authorizationEndpoint,
      token_endpoint: config.tokenEndpoint,
      ...(config.revocationEndpoint ? { revocation_endpoint: config.revocationEndpoint } : {}),
      ...(config.endSessionEndpoint ? { end_session_endpoint: config.endSessionEndpoint } : {}),
      ...(config.idTokenSigningAlgs ? { id_token_signing_alg_values_supported: config.idTokenSigningAlgs } : {}),
      ...(config.issParameterSupported ? { authorization_response_iss_parameter_supported: true } : {}),
    };
    this.client = { client_id: config.clientId };
    this.redirectUri = `${location.origin}/console`;
    this.http = isLoopbackHttp(config.tokenEndpoint) ? { [oauth.allowInsecureRequests]: true } : {};
  }

  /** The provider's host, for "Sign in with …". */
  get provider(): string {
    return new URL(this.config.issuer).host;
  }

  /** The session in this tab, if any (an expired access token still counts: renewal may revive it). */
  current(): Session | undefined {
    const raw = sessionStorage.getItem(SESSION);
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as Session;
    } catch {
      return undefined;
    }
  }

  /** The address carries the provider's answer to a sign-in this tab started. */
  returning(): boolean {
    const query = new URLSearchParams(location.search);
    return (query.has('code') || query.has('error')) && query.has('state') && sessionStorage.getItem(PENDING) !== null;
  }

  /** Goes to the provider's sign-in page. */
  async signIn(draft?: string): Promise<void> {
    const pending: Pending = { verifier: oauth.generateRandomCodeVerifier(), state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), ...(draft ? { draft } : {}) };
    sessionStorage.setItem(PENDING, JSON.stringify(pending));
    const url = new URL(this.config.authorizationEndpoint);
    const parameters = {
      client_id: this.config.clientId,
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: this.config.scope,
      code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    };
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    location.assign(url.toString());
  }

  /**
   * Finishes a sign-in on the way back from the provider: the answer validated (its state, its
   * issuer), the code exchanged with the PKCE verifier, the ID token's claims checked (issuer,
   * audience, nonce, expiry). The code leaves the address at once. Returns the draft to put back.
   */
  async complete(): Promise<{ draft: string | undefined }> {
    const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? '{}') as Pending;
    sessionStorage.removeItem(PENDING);
    const answer = new URL(location.href);
    history.replaceState(null, '', '/console');
    try {
      const parameters = oauth.validateAuthResponse(this.as, this.client, answer, pending.state);
      const response = await oauth.authorizationCodeGrantRequest(this.as, this.client, oauth.None(), parameters, this.redirectUri, pending.verifier, this.http);
      const result = await oauth.processAuthorizationCodeResponse(this.as, this.client, response, { expectedNonce: pending.nonce, requireIdToken: true });
      this.keep(result, undefined);
    } catch (error) {
      throw new SignInError(describe(error));
    }
    return { draft: pending.draft };
  }

  /** Renews with the refresh token; false when there is none or the provider refused it (sign in again). */
  async renew(): Promise<boolean> {
    const session = this.current();
    if (!session?.refreshToken) return false;
    try {
      const response = await oauth.refreshTokenGrantRequest(this.as, this.client, oauth.None(), session.refreshToken, this.http);
      this.keep(await oauth.processRefreshTokenResponse(this.as, this.client, response), session);
      return true;
    } catch {
      return false;
    }
  }

  /** Forgets the session here, revokes its refresh token and, when the provider offers it, ends its session there too. */
  async signOut(): Promise<void> {
    const session = this.current();
    sessionStorage.removeItem(SESSION);
    forgetToken();
    if (session?.refreshToken && this.as.revocation_endpoint) {
      await oauth
        .revocationRequest(this.as, this.client, oauth.None(), session.refreshToken, this.http)
        .then((response) => oauth.processRevocationResponse(response))
        .catch(() => undefined);
    }
    if (this.config.endSessionEndpoint && session) {
      const url = new URL(this.config.endSessionEndpoint);
      url.searchParams.set('client_id', this.config.clientId);
      url.searchParams.set('id_token_hint', session.idToken);
      url.searchParams.set('post_logout_redirect_uri', this.redirectUri);
      location.assign(url.toString());
    }
  }

  private keep(result: oauth.TokenEndpointResponse, previous: Session | undefined): void {
    const claims = oauth.getValidatedIdTokenClaims(result);
    const idToken = result.id_token ?? previous?.idToken;
    if (!idToken) throw new SignInError('The provider answered without an ID token.');
    const bearer = this.bearerOf(result.access_token, idToken);
    const now = Date.now();
    const expiry = expiryOf(bearer);
    const lifetimeMs = expiry !== undefined ? expiry - now : (result.expires_in ?? 300) * 1000;
    const session: Session = {
      accessToken: result.access_token,
      idToken,
      // A provider that rotates refresh tokens sends a new one; one that does not keeps the old one valid.
      refreshToken: result.refresh_token ?? previous?.refreshToken,
      expiresAt: now + lifetimeMs,
      renewAt: now + Math.max(lifetimeMs / 2, lifetimeMs - RENEW_MARGIN_MS),
      name: nameOf(claims) ?? previous?.name ?? 'you',
    };
    sessionStorage.setItem(SESSION, JSON.stringify(session));
    saveToken(bearer);
  }

  /** The token for the adapter: the first that names one of its audiences; else a JWT access token; else the ID token. */
  private bearerOf(accessToken: string, idToken: string): string {
    const forAdapter = (token: string) => audiencesOf(token).some((audience) => this.config.audiences.includes(audience));
    if (forAdapter(accessToken)) return accessToken;
    if (forAdapter(idToken)) return idToken;
    return JWT.test(accessToken) ? accessToken : idToken;
  }
}

/** A JWT's claims, unverified: only to choose which token to send and when to renew it (the adapter verifies). */
function claimsOf(token: string): Record<string, unknown> | undefined {
  if (!JWT.test(token)) return undefined;
  try {
    const binary = atob((token.split('.')[1] as string).replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)))) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function audiencesOf(token: string): string[] {
  const aud = claimsOf(token)?.['aud'];
  return typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((item): item is string => typeof item === 'string') : [];
}

function expiryOf(token: string): number | undefined {
  const exp = claimsOf(token)?.['exp'];
  return typeof exp === 'number' ? exp * 1000 : undefined;
}

function nameOf(claims: oauth.IDToken | undefined): string | undefined {
  if (!claims) return undefined;
  for (const name of ['name', 'preferred_username', 'email', 'sub']) {
    const value = claims[name];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof oauth.AuthorizationResponseError) {
    return `The identity provider refused the sign-in: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}.`;
  }
  if (error instanceof oauth.ResponseBodyError) return `The identity provider refused the sign-in code: ${error.error}.`;
  return `The sign-in could not be completed: ${error instanceof Error ? error.message : String(error)}`;
}
