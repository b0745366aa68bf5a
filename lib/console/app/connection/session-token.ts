import type { Connection } from '../../../client/connection.js';

/**
 * The bearer token the person typed (docs/architecture.md §4.7): kept in this tab's session storage only — never
 * local storage, never a URL — so it goes away with the tab and no other tab or later visit sees it.
 */
const KEY = 'iac-code-console.token';

export function readToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** The adapter as the client module reaches it (lib/client/connection.ts): this page's origin, with the token typed into this tab. */
export const adapter: Connection = { baseUrl: '', headers: () => authHeaders(readToken()) };
