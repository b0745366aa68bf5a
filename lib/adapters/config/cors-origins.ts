/**
 * IAC_CODE_AGUI_CORS_ORIGINS (docs/protocol.md §1.5, §9.1): comma-separated exact origins a browser
 * may call the adapter from, e.g. `https://console.example.com,http://localhost:5173`. Each must be
 * an origin as a browser sends it in `Origin` — scheme, host and port only, no path, no trailing
 * slash, no wildcard — because requests are matched by plain string comparison. Unset or empty =
 * CORS off.
 */
import { ConfigError } from './config-error.js';
import type { Env } from './values.js';

const NAME = 'IAC_CODE_AGUI_CORS_ORIGINS';

function exactOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${NAME} lists "${raw}", which is not an origin (scheme://host[:port])`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== raw) {
    throw new ConfigError(
      `${NAME} lists "${raw}"; write each origin exactly as browsers send it, e.g. "${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : 'https://app.example.com'}"`,
    );
  }
  return raw;
}

export function corsOriginsFrom(env: Env): string[] {
  const items = (env[NAME] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  return [...new Set(items.map(exactOrigin))];
}
