/**
 * One rule for every URL the adapter sends credentials to — the A2A kernel (its bearer token) and
 * the OSS endpoint (signed requests, an STS token in a header) — docs/protocol.md §9:
 *
 * - https is always allowed;
 * - plain http is allowed to a loopback host (localhost, 127.0.0.0/8, ::1: the traffic never
 *   leaves the machine, which is where the emulators run);
 * - plain http to any other host only with that service's ALLOW_INSECURE=1 switch, because the
 *   credentials would cross a network in clear text — a private address is still a network.
 */
import { isIPv4 } from 'node:net';
import { ConfigError } from './config-error.js';

export interface ServiceUrlRule {
  /** The variable the URL came from, named in every error. */
  variable: string;
  /** The variable that allows plain http to a non-loopback host. */
  insecureVariable: string;
  allowInsecure: boolean;
}

/** The host part of a URL without IPv6 brackets (`[::1]` → `::1`). */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** localhost, 127.0.0.0/8 or ::1 (the WHATWG URL parser has already normalised `127.1`, `0:0::1`…). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}

/** Parses `raw` and applies the rule above; the error names `rule.variable`. */
export function checkServiceUrl(raw: string, rule: ServiceUrlRule): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${rule.variable} is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${rule.variable} must be http or https`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !rule.allowInsecure) {
    throw new ConfigError(`${rule.variable} must use https for a non-loopback host (set ${rule.insecureVariable}=1 to allow http)`);
  }
  return url;
}
