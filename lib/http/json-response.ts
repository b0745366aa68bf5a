/** JSON answers (docs/protocol.md §2.2); the error envelope, which needs the message catalogue, is error-response.ts. */

/** The headers of every JSON answer; `x-content-type-options: nosniff` is on every response (docs/protocol.md §1.5). */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}
