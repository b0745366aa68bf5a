/**
 * The provider's signing keys (its JWKS, docs/protocol.md §1.2), cached:
 *
 * - fetched with the first token, then kept; a set older than `maxAgeMs` is fetched again with the
 *   next token (a key the provider withdrew stops verifying), and while that fails the set in hand
 *   is used, the fetch retried at most once per `cooldownMs`;
 * - a token naming a key id (`kid`) the set does not hold fetches the set again — at most once per
 *   `cooldownMs` (a minute), so a provider that rotated its key is followed within one token while
 *   a flood of made-up ids costs the provider one request a minute, not one per token;
 * - concurrent tokens share one fetch in flight.
 *
 * Only public signature keys are kept: no `oct` (symmetric) member ever verifies anything here.
 * Matching a key to a token's header (kty, alg, use, crv) is jose's `createLocalJWKSet`.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWSHeaderParameters } from 'jose';
import { IdentityProviderUnavailableError, TokenRefusedError } from '../../core/ports.js';

type Lookup = ReturnType<typeof createLocalJWKSet>;
type VerificationKey = Awaited<ReturnType<Lookup>>;

export interface KeySetOptions {
  /** Fetches the provider's JWKS document (its jwks_uri); IdentityProviderUnavailableError on failure. */
  fetchKeys: () => Promise<unknown>;
  clock: () => number;
  maxAgeMs: number;
  cooldownMs: number;
  /** A refresh failed while older keys were still in hand (they go on being used). */
  onStaleRefreshFailure?: (error: unknown) => void;
}

interface Held {
  lookup: Lookup;
  kids: ReadonlySet<string>;
  fetchedAt: number;
}

const ASYMMETRIC_KTY = new Set(['RSA', 'EC', 'OKP']);

export class RemoteKeySet {
  private held: Held | undefined;
  private inFlight: Promise<Held> | undefined;
  private lastUnknownKidFetch = Number.NEGATIVE_INFINITY;
  private lastFailedRefresh = Number.NEGATIVE_INFINITY;
  /** How many times the JWKS was fetched (the bench and the tests read it). */
  fetches = 0;

  constructor(private readonly options: KeySetOptions) {}

  /** The key that verifies a token with this header; TokenRefusedError `token_key_unknown` when the provider publishes none. */
  async key(header: JWSHeaderParameters): Promise<VerificationKey> {
    const kid = header.kid as string;
    let held = await this.current();
    if (!held.kids.has(kid)) {
      const now = this.options.clock();
      if (now - this.lastUnknownKidFetch < this.options.cooldownMs) throw unknownKey();
      this.lastUnknownKidFetch = now;
      held = await this.fetch();
      if (!held.kids.has(kid)) throw unknownKey();
    }
    try {
      return await held.lookup(header);
    } catch (error) {
      // The id is published, but not for this algorithm (another kty, alg or use), or twice.
      if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_JWKS_')) throw unknownKey();
      throw error;
    }
  }

  private async current(): Promise<Held> {
    const held = this.held;
    if (!held) return this.fetch();
    const now = this.options.clock();
    if (now - held.fetchedAt < this.options.maxAgeMs || now - this.lastFailedRefresh < this.options.cooldownMs) return held;
    try {
      return await this.fetch();
    } catch (error) {
      this.lastFailedRefresh = now;
      this.options.onStaleRefreshFailure?.(error);
      return held;
    }
  }

  private fetch(): Promise<Held> {
    this.inFlight ??= (async () => {
      try {
        this.fetches += 1;
        const held = parseKeySet(await this.options.fetchKeys(), this.options.clock());
        this.held = held;
        return held;
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }
}

function unknownKey(): TokenRefusedError {
  return new TokenRefusedError('token_key_unknown');
}

function parseKeySet(document: unknown, now: number): Held {
  const keys = typeof document === 'object' && document !== null ? (document as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw new IdentityProviderUnavailableError('no JSON Web Key Set at the jwks_uri');
  const usable = keys.filter(
    (key): key is JWK =>
      typeof key === 'object' && key !== null && ASYMMETRIC_KTY.has((key as JWK).kty ?? '') && typeof (key as JWK).kid === 'string' && (key as JWK).d === undefined,
  );
  const set: JSONWebKeySet = { keys: usable };
  return { lookup: createLocalJWKSet(set), kids: new Set(usable.map((key) => key.kid as string)), fetchedAt: now };
}
