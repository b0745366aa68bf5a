/**
 * `GET /console` and its assets (docs/protocol.md §1.1; docs/architecture.md §4.7): the web console's page, its
 * content-hashed scripts and styles, and `/console/config.json`. Only serving lives here — the
 * assets come from a loader (built in memory by `npm start`, read from the function's code folder
 * in FC), so neither esbuild nor the browser code is ever imported by this file.
 *
 * Caching: the page is `no-cache` (it names the current hashed assets), the assets `immutable`
 * (a new build gives new names). Every answer carries a strict content security policy: no inline
 * script or style, everything from this origin, and the browser talks only to this origin.
 */

/** One built file, served as is. */
export interface ConsoleAsset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** What a console build produces: the page and its assets by file name (e.g. `console-3F2A.js`). */
export interface ConsoleAssets {
  html: string;
  assets: ReadonlyMap<string, ConsoleAsset>;
}

/**
 * What the page learns before it talks to the adapter. `authRequired` is no secret: `POST /`
 * without a token already answers 401 when one is configured. `examples` are prompts to offer
 * (the local stack names the built-in emulator's scenarios; absent elsewhere). `signIn`: the page
 * signs people in with the identity provider (IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID, docs/protocol.md
 * §1.2) instead of asking for a token.
 */
export interface ConsoleSettings {
  authRequired: boolean;
  examples?: ReadonlyArray<{ label: string; text: string; description?: string; runMode?: 'normal' | 'pipeline' }>;
  signIn?: ConsoleSignIn;
}

/** The provider's endpoints the page's sign-in uses, from its discovery document. */
export interface SignInEndpoints {
  authorization_endpoint?: string;
  token_endpoint?: string;
  revocation_endpoint?: string;
  end_session_endpoint?: string;
  id_token_signing_alg_values_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
}

export interface ConsoleSignIn {
  issuer: string;
  /** The console's own public client at the provider. */
  clientId: string;
  scope: string;
  /** IAC_CODE_AGUI_OIDC_AUDIENCE: the page sends whichever of its tokens names one (the access token, or the ID token). */
  audiences: readonly string[];
  /** Read by the adapter (lib/adapters/oidc/discovery.ts), so the page needs no access to the discovery document, and its CSP names the origins it talks to. */
  endpoints: () => Promise<SignInEndpoints>;
}

/** What /console/config.json says of the sign-in; `unavailable` when the provider's discovery document cannot be read now. */
export type SignInConfig =
  | {
      issuer: string;
      clientId: string;
      scope: string;
      audiences: readonly string[];
      authorizationEndpoint: string;
      tokenEndpoint: string;
      revocationEndpoint?: string;
      endSessionEndpoint?: string;
      idTokenSigningAlgs?: string[];
      issParameterSupported?: boolean;
    }
  | { issuer: string; clientId: string; scope: string; audiences: readonly string[]; unavailable: true };

/** Answers a GET under /console, or undefined for a path it does not serve (the app answers 404). */
export type ConsoleRoute = (pathname: string) => Promise<Response | undefined>;

export const CONSOLE_PATH = '/console';
export const CONSOLE_ASSET_PREFIX = '/console/assets/';

/** The policy, with the origins of the identity provider's token and revocation endpoints when the page signs people in. */
export function consoleCsp(connectOrigins: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // Attached images are previewed from blob: URLs before they are sent.
    "img-src 'self' blob: data:",
    ["connect-src 'self'", ...connectOrigins].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export const CONSOLE_CSP = consoleCsp();

function commonHeaders(csp: string): Record<string, string> {
  // No referrer: the page's address carries the provider's authorization code for a moment after sign-in.
  return { 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cross-origin-opener-policy': 'same-origin' };
}

/** The sign-in as the page reads it, and the origins its CSP must let it reach. */
async function signInOf(signIn: ConsoleSignIn): Promise<{ config: SignInConfig; origins: string[] }> {
  const { issuer, clientId, scope, audiences } = signIn;
  let endpoints: SignInEndpoints;
  try {
    endpoints = await signIn.endpoints();
  } catch {
    return { config: { issuer, clientId, scope, audiences, unavailable: true }, origins: [] };
  }
  const {
    authorization_endpoint: authorizationEndpoint,
    token_endpoint: tokenEndpoint,
    revocation_endpoint: revocationEndpoint,
    end_session_endpoint: endSessionEndpoint,
    id_token_signing_alg_values_supported: idTokenSigningAlgs,
    authorization_response_iss_parameter_supported: issParameterSupported,
  } = endpoints;
  if (!authorizationEndpoint || !tokenEndpoint) return { config: { issuer, clientId, scope, audiences, unavailable: true }, origins: [] };
  const origins = [...new Set([tokenEndpoint, revocationEndpoint].filter((url): url is string => url !== undefined).map((url) => new URL(url).origin))];
  return {
    config: {
      issuer,
      clientId,
      scope,
      audiences,
      authorizationEndpoint,
      tokenEndpoint,
      ...(revocationEndpoint ? { revocationEndpoint } : {}),
      ...(endSessionEndpoint ? { endSessionEndpoint } : {}),
      ...(idTokenSigningAlgs ? { idTokenSigningAlgs } : {}),
      ...(issParameterSupported ? { issParameterSupported } : {}),
    },
    origins,
  };
}

/**
 * The console's route. `load` is called on the first request and its promise kept, so a build
 * started at start-up is simply awaited; a failed load is retried on the next request.
 */
export function createConsoleRoute(load: () => Promise<ConsoleAssets>, settings: ConsoleSettings): ConsoleRoute {
  let loading: Promise<ConsoleAssets> | undefined;
  const assets = (): Promise<ConsoleAssets> => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const { signIn, ...plain } = settings;
  const staticConfig = JSON.stringify({ schemaVersion: 1, ...plain });
  // The provider's endpoints, once read (the page and config.json both need them); a failure is tried again.
  let signInRead: Promise<{ config: SignInConfig; origins: string[] }> | undefined;
  const currentSignIn = async () => {
    if (!signIn) return undefined;
    signInRead ??= signInOf(signIn).then((read) => {
      if ('unavailable' in read.config) signInRead = undefined;
      return read;
    });
    return signInRead;
  };
  return async (pathname) => {
    if (pathname === CONSOLE_PATH || pathname === `${CONSOLE_PATH}/`) {
      const [{ html }, read] = await Promise.all([assets(), currentSignIn()]);
      return new Response(html, { status: 200, headers: { ...commonHeaders(consoleCsp(read?.origins)), 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } });
    }
    if (pathname === `${CONSOLE_PATH}/config.json`) {
      const read = await currentSignIn();
      const config = read ? JSON.stringify({ schemaVersion: 1, ...plain, signIn: read.config }) : staticConfig;
      return new Response(config, {
        status: 200,
        headers: { ...commonHeaders(consoleCsp(read?.origins)), 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      });
    }
    if (pathname.startsWith(CONSOLE_ASSET_PREFIX)) {
      const asset = (await assets()).assets.get(pathname.slice(CONSOLE_ASSET_PREFIX.length));
      if (!asset) return undefined;
      return new Response(asset.body, {
        status: 200,
        headers: { ...commonHeaders(CONSOLE_CSP), 'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable' },
      });
    }
    return undefined;
  };
}
