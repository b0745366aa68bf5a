/**
 * The identity provider's discovery document (OpenID Connect Discovery 1.0 §4;
 * docs/protocol.md §1.2): read from `<issuer>/.well-known/openid-configuration`, its `issuer`
 * compared with the configured one exactly (§4.3: a document for another issuer is no document of
 * this one), every endpoint held to the issuer's own rule — https, or plain http on a loopback host.
 * Any failure is an IdentityProviderUnavailableError naming the URL and what went wrong; none
 * carries a token.
 */
import { IdentityProviderUnavailableError } from '../../core/ports.js';
import { isLoopbackHost } from '../config/url-policy.js';

/** What the adapter and its console use of the document. */
export interface ProviderMetadata {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  revocation_endpoint?: string;
  end_session_endpoint?: string;
  /** For the console's check of its ID tokens (oauth4webapi compares the header's alg with it). */
  id_token_signing_alg_values_supported?: string[];
  /** RFC 9207: the authorization response names the issuer; the console then requires it. */
  authorization_response_iss_parameter_supported?: boolean;
}

/** How long one request to the provider may take. */
export const PROVIDER_TIMEOUT_MS = 5_000;

export type Fetch = typeof fetch;

/** GET `url` as JSON within the timeout; anything else is the provider being unavailable. */
export async function fetchJson(url: string, fetchImpl: Fetch): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS), redirect: 'error' });
  } catch (error) {
    throw new IdentityProviderUnavailableError(`GET ${url} failed`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new IdentityProviderUnavailableError(`GET ${url} answered HTTP ${response.status}`);
  }
  try {
    return await response.json();
  } catch (error) {
    throw new IdentityProviderUnavailableError(`GET ${url} did not answer JSON`, { cause: error });
  }
}

/** https anywhere, http only to this machine: the rule of the issuer itself (lib/adapters/config/oidc-settings.ts). */
export function isTrustedEndpoint(raw: unknown): raw is string {
  if (typeof raw !== 'string') return false;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

export function discoveryUrl(issuer: string): string {
  // §4: "any terminating / MUST be removed before appending /.well-known/openid-configuration".
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'revocation_endpoint', 'end_session_endpoint'] as const;

export async function discover(issuer: string, fetchImpl: Fetch): Promise<ProviderMetadata> {
  const url = discoveryUrl(issuer);
  const document = await fetchJson(url, fetchImpl);
  if (typeof document !== 'object' || document === null) throw new IdentityProviderUnavailableError(`${url} is not a JSON object`);
  const fields = document as Record<string, unknown>;
  if (fields['issuer'] !== issuer) {
    throw new IdentityProviderUnavailableError(
      `${url} names the issuer ${JSON.stringify(fields['issuer'])}, not ${JSON.stringify(issuer)} (IAC_CODE_AGUI_OIDC_ISSUER must be written as the provider writes it)`,
    );
  }
  if (!isTrustedEndpoint(fields['jwks_uri'])) throw new IdentityProviderUnavailableError(`${url} names no https jwks_uri`);
  const metadata: ProviderMetadata = { issuer, jwks_uri: fields['jwks_uri'] };
  for (const name of ENDPOINTS) {
    const value = fields[name];
    if (value === undefined) continue;
    if (!isTrustedEndpoint(value)) throw new IdentityProviderUnavailableError(`${url} names a ${name} that is not https`);
    metadata[name] = value;
  }
  const algs = fields['id_token_signing_alg_values_supported'];
  if (Array.isArray(algs) && algs.every((alg) => typeof alg === 'string')) metadata.id_token_signing_alg_values_supported = algs;
  if (fields['authorization_response_iss_parameter_supported'] === true) metadata.authorization_response_iss_parameter_supported = true;
  return metadata;
}
