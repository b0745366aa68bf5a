/** JSON answers and the pre-stream error envelope `{"error": {code, message, details?}}` (docs/protocol.md §2.2). */
import type { AdapterError } from '../core/errors.js';
import { type Language, translate } from '../core/i18n/catalogue.js';
import { SERVER_BUSY_RETRY_AFTER_SECONDS } from './live-stream-gate.js';
import { httpStatusFor } from './status.js';

/** Every JSON answer; `x-content-type-options: nosniff` is on every response (docs/protocol.md §1.5). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers },
  });
}

export function errorResponse(error: AdapterError, language: Language, headers: Record<string, string> = {}): Response {
  const body: Record<string, unknown> = { code: error.code, message: translate(error.messageKey, language) };
  if (error.details) body['details'] = error.details;
  const extra = error.code === 'SERVER_BUSY' ? { 'retry-after': String(SERVER_BUSY_RETRY_AFTER_SECONDS), ...headers } : headers;
  return jsonResponse(httpStatusFor(error.code), { error: body }, extra);
}
