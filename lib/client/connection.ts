/**
 * Where and how the client reaches the adapter: its base URL ('' for the page's own origin, as the
 * console uses it), the headers every call carries (the bearer token, docs/protocol.md §1.2) and
 * the fetch to use. Read afresh for each call, so a renewed token is used at the next attempt.
 */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

export interface Connection {
  baseUrl: string;
  headers(): Record<string, string>;
  fetch?: FetchFn | undefined;
}

/** The global fetch, called on the global object (a browser's fetch refuses another receiver). */
export const globalFetch: FetchFn = (url, init) => fetch(url, init);

export function fetchOf(connection: Connection): FetchFn {
  return connection.fetch ?? globalFetch;
}

/** `baseUrl` + `path`, without a doubled slash. */
export function urlOf(connection: Connection, path: string): string {
  return `${connection.baseUrl.replace(/\/+$/, '')}${path}`;
}

/** The adapter's extension routes (docs/protocol.md §1.1, §6.7, §6.14, §6.16). */
export const routes = {
  cancel: (executionId: string) => `/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/cancel`,
  subscribe: (executionId: string) => `/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/subscribe`,
  thread: (threadId: string) => `/extensions/iac-code/v1/threads/${encodeURIComponent(threadId)}`,
  threadSubscribe: (threadId: string) => `/extensions/iac-code/v1/threads/${encodeURIComponent(threadId)}/subscribe`,
  threadMessages: (threadId: string) => `/extensions/iac-code/v1/threads/${encodeURIComponent(threadId)}/messages`,
};
