/**
 * Opt-in CORS (docs/protocol.md §1.5): with IAC_CODE_AGUI_CORS_ORIGINS listing exact origins, a
 * request whose `Origin` is one of them gets `access-control-allow-origin: <that origin>`, and a
 * preflight (OPTIONS on a known route) answers 204 allowing the methods and headers an AG-UI client
 * sends. An unlisted or missing origin gets no CORS header, so the browser refuses the response.
 * Without a list nothing here applies: no CORS header anywhere, and OPTIONS is 405 like any other
 * method a route does not take.
 *
 * `vary: origin` goes on every response while a list is configured: whether the allow-origin header
 * is present depends on the Origin, so a cache must not hand one origin's answer to another.
 * Credentials mode is never allowed: the bearer token travels in `authorization`, not in a cookie.
 */

export const CORS_ALLOW_METHODS = 'POST, GET, OPTIONS';
/** With the reattach headers a browser client sends on another origin (docs/protocol.md §6.15): its grace, its last event id. */
export const CORS_ALLOW_HEADERS = 'authorization, content-type, accept, accept-language, last-event-id, x-iac-code-detach-grace-ms';
/** Seconds a browser may cache a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** The configured origins; empty = CORS off. */
export type CorsOrigins = readonly string[];

function allowedOrigin(request: Request, origins: CorsOrigins): string | undefined {
  const origin = request.headers.get('origin');
  return origin !== null && origins.includes(origin) ? origin : undefined;
}

/** 204 to a preflight on a known route; the allow headers only for a listed origin. */
export function preflightResponse(request: Request, origins: CorsOrigins): Response {
  const headers = new Headers();
  const origin = allowedOrigin(request, origins);
  if (origin !== undefined) {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-allow-methods', CORS_ALLOW_METHODS);
    headers.set('access-control-allow-headers', CORS_ALLOW_HEADERS);
    headers.set('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
  }
  return new Response(null, { status: 204, headers });
}

/** Adds the CORS answer to any response (errors and SSE streams included) while a list is configured. */
export function withCors(response: Response, request: Request, origins: CorsOrigins): Response {
  if (origins.length === 0) return response;
  response.headers.append('vary', 'origin');
  const origin = allowedOrigin(request, origins);
  if (origin !== undefined && !response.headers.has('access-control-allow-origin')) response.headers.set('access-control-allow-origin', origin);
  return response;
}
