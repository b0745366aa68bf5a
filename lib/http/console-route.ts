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
 * (the local stack names the built-in emulator's scenarios; absent elsewhere).
 */
export interface ConsoleSettings {
  authRequired: boolean;
  examples?: ReadonlyArray<{ label: string; text: string; description?: string; runMode?: 'normal' | 'pipeline' }>;
}

/** Answers a GET under /console, or undefined for a path it does not serve (the app answers 404). */
export type ConsoleRoute = (pathname: string) => Promise<Response | undefined>;

export const CONSOLE_PATH = '/console';
export const CONSOLE_ASSET_PREFIX = '/console/assets/';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Attached images are previewed from blob: URLs before they are sent.
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const COMMON_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

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
  const config = JSON.stringify({ schemaVersion: 1, ...settings });
  return async (pathname) => {
    if (pathname === CONSOLE_PATH || pathname === `${CONSOLE_PATH}/`) {
      const { html } = await assets();
      return new Response(html, { status: 200, headers: { ...COMMON_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } });
    }
    if (pathname === `${CONSOLE_PATH}/config.json`) {
      return new Response(config, { status: 200, headers: { ...COMMON_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
    }
    if (pathname.startsWith(CONSOLE_ASSET_PREFIX)) {
      const asset = (await assets()).assets.get(pathname.slice(CONSOLE_ASSET_PREFIX.length));
      if (!asset) return undefined;
      return new Response(asset.body, {
        status: 200,
        headers: { ...COMMON_HEADERS, 'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable' },
      });
    }
    return undefined;
  };
}
