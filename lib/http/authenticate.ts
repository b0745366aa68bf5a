/**
 * Who is asking (docs/protocol.md §1.2) — the first check of every protected route, before its body
 * is read:
 *
 * - nothing configured (no IAC_CODE_AGUI_AUTH_TOKEN, no IAC_CODE_AGUI_OIDC_ISSUER): a service, unchecked;
 * - `Authorization: Bearer <token>` (scheme case-insensitive) equal to the shared token, compared in
 *   constant time: a service;
 * - otherwise, with an identity provider, a JWT it vouches for (TokenVerifier): a person, whose
 *   user id is the token's claim;
 * - otherwise 401 UNAUTHORIZED — with the refusal's stable reason when a verifier looked at the token.
 *
 * The identity provider being unreachable is no refusal: 503 IDENTITY_PROVIDER_UNAVAILABLE.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Caller, personCaller, SERVICE } from '../core/caller.js';
import { AdapterError } from '../core/errors.js';
import type { MessageKey } from '../core/i18n/catalogue.js';
import { IdentityProviderUnavailableError, type TokenRefusal, TokenRefusedError, type TokenVerifier } from '../core/ports.js';
import type { Secret } from '../core/secret.js';

export interface Authentication {
  authToken: Secret | undefined;
  /** The identity provider's verifier; absent = no per-user identity. */
  tokens?: TokenVerifier | undefined;
}

/** `token_key_unknown` → `tokenKeyUnknown`, as a type: every refusal must have its message in the catalogue. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

// Compiles only while every refusal has its message: a missing one is named here.
const everyRefusalHasAMessage: [Exclude<Camel<TokenRefusal>, MessageKey>] extends [never] ? true : Exclude<Camel<TokenRefusal>, MessageKey> = true;
void everyRefusalHasAMessage;

/** The message each refusal is answered with (docs/protocol.md §2.3): its reason, camel-cased. */
export function refusalMessage<R extends TokenRefusal>(reason: R): Camel<R> & MessageKey {
  return reason.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) as Camel<R> & MessageKey;
}

/** The credentials of `Authorization: Bearer …`, or undefined when there are none. */
export function bearerOf(request: Request): string | undefined {
  const header = request.headers.get('authorization') ?? '';
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const presented = header.slice(space + 1).trim();
  return presented.length > 0 ? presented : undefined;
}

/** Hashing both sides gives equal lengths, so the comparison time does not depend on the token. */
export function isSharedToken(presented: string, token: Secret): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(token.reveal()));
}

export async function authenticate(request: Request, auth: Authentication): Promise<Caller> {
  const { authToken, tokens } = auth;
  if (!authToken && !tokens) return SERVICE;
  const presented = bearerOf(request);
  if (presented === undefined) throw new AdapterError('UNAUTHORIZED', 'unauthorized');
  if (authToken && isSharedToken(presented, authToken)) return SERVICE;
  if (!tokens) throw new AdapterError('UNAUTHORIZED', 'unauthorized');
  try {
    return personCaller((await tokens.verify(presented)).userId);
  } catch (error) {
    if (error instanceof TokenRefusedError) throw new AdapterError('UNAUTHORIZED', refusalMessage(error.reason), undefined, { reason: error.reason, cause: error });
    if (error instanceof IdentityProviderUnavailableError) throw new AdapterError('IDENTITY_PROVIDER_UNAVAILABLE', 'identityProviderUnavailable', undefined, { cause: error });
    throw error;
  }
}
