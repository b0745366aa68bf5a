/**
 * Per-user identity (docs/protocol.md §1.2, §9.1): the OpenID Connect provider whose JWTs identify
 * people. Unset IAC_CODE_AGUI_OIDC_ISSUER = no OIDC, and the adapter behaves as before it had any.
 *
 * - IAC_CODE_AGUI_OIDC_ISSUER: the issuer exactly as the provider writes it in its tokens' `iss`
 *   and its discovery document (`<issuer>/.well-known/openid-configuration`); https, or plain http
 *   on a loopback host only (a provider on this machine: the tests', a developer's).
 * - IAC_CODE_AGUI_OIDC_AUDIENCE (required with the issuer): comma-separated; a token must name one.
 * - IAC_CODE_AGUI_OIDC_CLIENTS: comma-separated allow-list of the client a token was issued to
 *   (`azp`, else `client_id`); unset = any client of the provider.
 * - IAC_CODE_AGUI_OIDC_USER_CLAIM: the claim that is a person's user id (default `sub`).
 * - IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID: the web console's own (public) client: the console then
 *   signs people in with the provider (authorization code with PKCE) instead of asking for a token.
 * - IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE: the scopes the console asks for (default `openid offline_access`:
 *   the refresh token its silent renewal uses).
 */
import { ConfigError } from './config-error.js';
import { isLoopbackHost } from './url-policy.js';
import { type Env, setting } from './values.js';

export interface OidcSettings {
  issuer: string;
  audiences: string[];
  /** Undefined = any client. */
  clients: string[] | undefined;
  userClaim: string;
  console: { clientId: string; scope: string } | undefined;
}

const ISSUER = 'IAC_CODE_AGUI_OIDC_ISSUER';
const OIDC_PREFIX = 'IAC_CODE_AGUI_OIDC_';
const DEFAULT_CONSOLE_SCOPE = 'openid offline_access';

function list(env: Env, name: string): string[] {
  return [
    ...new Set(
      (env[name] ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    ),
  ];
}

function issuerFrom(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${ISSUER} is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigError(`${ISSUER} must use https (plain http only on a loopback host), got "${raw}"`);
  }
  if (url.search || url.hash) throw new ConfigError(`${ISSUER} must have no query or fragment, got "${raw}"`);
  // Compared with each token's `iss` as written: the value is kept exactly as configured.
  return raw;
}

export function oidcSettingsFrom(env: Env): OidcSettings | undefined {
  const rawIssuer = setting(env, ISSUER);
  if (rawIssuer === undefined) {
    const stray = Object.keys(env).find((name) => name.startsWith(OIDC_PREFIX) && setting(env, name) !== undefined);
    if (stray) throw new ConfigError(`${stray} is set but ${ISSUER} is not: set the issuer too, or unset ${stray}`);
    return undefined;
  }
  const issuer = issuerFrom(rawIssuer);
  const audiences = list(env, 'IAC_CODE_AGUI_OIDC_AUDIENCE');
  if (audiences.length === 0)
    throw new ConfigError(`IAC_CODE_AGUI_OIDC_AUDIENCE is required with ${ISSUER}: the audience (one or more, comma-separated) a token must be issued for`);
  const clients = list(env, 'IAC_CODE_AGUI_OIDC_CLIENTS');
  const userClaim = setting(env, 'IAC_CODE_AGUI_OIDC_USER_CLAIM')?.trim() ?? 'sub';
  if (!/^[A-Za-z0-9_:.-]+$/.test(userClaim)) throw new ConfigError(`IAC_CODE_AGUI_OIDC_USER_CLAIM must name one claim, got "${userClaim}"`);
  const consoleClientId = setting(env, 'IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID')?.trim();
  if (consoleClientId !== undefined && clients.length > 0 && !clients.includes(consoleClientId)) {
    throw new ConfigError(`IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID "${consoleClientId}" is not in IAC_CODE_AGUI_OIDC_CLIENTS: the console's own tokens would be refused`);
  }
  const scope = setting(env, 'IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE')?.trim() ?? DEFAULT_CONSOLE_SCOPE;
  if (consoleClientId === undefined && setting(env, 'IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE') !== undefined) {
    throw new ConfigError('IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE is set but IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID is not');
  }
  if (consoleClientId !== undefined && !scope.split(/\s+/).includes('openid')) throw new ConfigError(`IAC_CODE_AGUI_OIDC_CONSOLE_SCOPE must include "openid", got "${scope}"`);
  return {
    issuer,
    audiences,
    clients: clients.length > 0 ? clients : undefined,
    userClaim,
    console: consoleClientId === undefined ? undefined : { clientId: consoleClientId, scope },
  };
}
