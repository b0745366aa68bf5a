/**
 * A person's bearer token, checked against the identity provider (docs/protocol.md §1.2) with jose:
 *
 * 1. it is a compact JWS whose header names an asymmetric algorithm (never `none`, never `HS*`: an
 *    HMAC "signed" with the provider's public key would otherwise verify) and a key id;
 * 2. its unverified `iss` is the configured issuer — a token of another provider is refused at once,
 *    and never makes this adapter fetch keys for it;
 * 3. its signature verifies with the provider's published key of that id (key-set.ts);
 * 4. `iss`, `aud` (one of IAC_CODE_AGUI_OIDC_AUDIENCE), `exp` (required), `nbf` and `iat` (neither
 *    in the future) hold, each with CLOCK_TOLERANCE_S of slack;
 * 5. when IAC_CODE_AGUI_OIDC_CLIENTS is set, the client it was issued to — `azp`, else `client_id`
 *    (RFC 9068), else a single `aud` (OpenID Connect Core §2: an ID token without `azp` was issued to
 *    its audience) — is listed;
 * 6. the user claim (IAC_CODE_AGUI_OIDC_USER_CLAIM) is a well-formed string of 1–1,024 characters.
 *
 * Each refusal is a TokenRefusedError with a stable reason; the provider being unreachable, an
 * IdentityProviderUnavailableError. What jose throws never leaves this file: its claim errors carry
 * the token's payload.
 */
import { type JWTPayload, jwtVerify } from 'jose';
import { errorFields } from '../../core/error-fields.js';
import { onceUntilFailure } from '../../core/once-until-failure.js';
import { IdentityProviderUnavailableError, type Logger, type TokenRefusal, TokenRefusedError, type TokenVerifier, type VerifiedToken } from '../../core/ports.js';
import { isWellFormed, MAX_ID_LENGTH } from '../../core/protocol/identity.js';
import type { OidcSettings } from '../config/oidc-settings.js';
import { discover, type Fetch, fetchJson, type ProviderMetadata } from './discovery.js';
import { RemoteKeySet } from './key-set.js';

/** Every asymmetric JWS algorithm jose verifies; nothing symmetric, nothing unsigned. */
export const ACCEPTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Slack for the clocks of the provider and of this machine. */
export const CLOCK_TOLERANCE_S = 30;
/** A key set older than this is fetched again with the next token. */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** At most one key-set fetch per this long for unknown key ids, and for a failing refresh. */
export const KEYS_COOLDOWN_MS = 60_000;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface OidcVerifierDeps {
  clock: () => number;
  logger: Logger;
  fetch?: Fetch;
}

export class OidcTokenVerifier implements TokenVerifier {
  private readonly discovered: () => Promise<ProviderMetadata>;
  readonly keys: RemoteKeySet;

  constructor(
    private readonly settings: OidcSettings,
    private readonly deps: OidcVerifierDeps,
  ) {
    const fetchImpl = deps.fetch ?? fetch;
    // Kept once read; a failure is tried again by the next token.
    this.discovered = onceUntilFailure(() => discover(settings.issuer, fetchImpl));
    this.keys = new RemoteKeySet({
      fetchKeys: async () => fetchJson((await this.discovered()).jwks_uri, fetchImpl),
      clock: deps.clock,
      maxAgeMs: KEYS_MAX_AGE_MS,
      cooldownMs: KEYS_COOLDOWN_MS,
      onStaleRefreshFailure: (error) => deps.logger.warn('the identity provider’s keys could not be refreshed; the keys in hand are used', { error: errorFields(error) }),
    });
  }

  /** The provider's discovery document (the console's sign-in needs its endpoints). */
  metadata(): Promise<ProviderMetadata> {
    return this.discovered();
  }

  async verify(token: string): Promise<VerifiedToken> {
    const header = headerOf(token);
    if (typeof header['alg'] !== 'string' || !ACCEPTED_ALGORITHMS.includes(header['alg'])) throw new TokenRefusedError('token_algorithm_refused');
    if (typeof header['kid'] !== 'string' || header['kid'].length === 0) throw new TokenRefusedError('token_key_missing');
    if (partOf(token, 1)['iss'] !== this.settings.issuer) throw new TokenRefusedError('token_wrong_issuer');
    await this.discovered();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (protectedHeader) => this.keys.key(protectedHeader), {
        issuer: this.settings.issuer,
        audience: this.settings.audiences,
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.deps.clock()),
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    const now = this.deps.clock() / 1000;
    if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_TOLERANCE_S) throw new TokenRefusedError('token_not_yet_valid');
    this.checkClient(payload);
    return { userId: this.userIdOf(payload) };
  }

  private checkClient(payload: JWTPayload): void {
    const clients = this.settings.clients;
    if (!clients) return;
    const client = stringClaim(payload, 'azp') ?? stringClaim(payload, 'client_id') ?? (typeof payload.aud === 'string' ? payload.aud : undefined);
    if (client === undefined || !clients.includes(client)) throw new TokenRefusedError('token_client_refused');
  }

  private userIdOf(payload: JWTPayload): string {
    const userId = payload[this.settings.userClaim];
    if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_ID_LENGTH || !isWellFormed(userId)) {
      throw new TokenRefusedError('token_user_claim_missing');
    }
    return userId;
  }
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Part `index` of a compact JWS as a JSON object, not verified: only to refuse early, never to accept. */
function partOf(token: string, index: 0 | 1): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(token.split('.')[index] as string, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw new TokenRefusedError('token_malformed');
}

function headerOf(token: string): Record<string, unknown> {
  if (!COMPACT_JWS.test(token)) throw new TokenRefusedError('token_malformed');
  return partOf(token, 0);
}

/** jose's error → our refusal; the provider being unavailable (thrown by the key lookup) passes through. */
function refusalOf(error: unknown): Error {
  if (!(error instanceof Error)) return new TokenRefusedError('token_malformed');
  if (error instanceof TokenRefusedError || error instanceof IdentityProviderUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  const reason: TokenRefusal = (() => {
    switch (code) {
      case 'ERR_JWT_EXPIRED':
        return 'token_expired';
      case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
        return claim === 'iss' ? 'token_wrong_issuer' : claim === 'aud' ? 'token_wrong_audience' : claim === 'nbf' ? 'token_not_yet_valid' : 'token_claims_invalid';
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
      case 'ERR_JOSE_NOT_SUPPORTED':
        return 'token_algorithm_refused';
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return 'token_signature_invalid';
      case 'ERR_JWKS_NO_MATCHING_KEY':
      case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
        return 'token_key_unknown';
      default:
        return 'token_malformed';
    }
  })();
  return new TokenRefusedError(reason);
}
