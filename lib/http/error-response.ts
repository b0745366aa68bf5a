/**
 * The pre-stream error envelope `{"error": {code, message, details?}}` (docs/protocol.md §2.2), its
 * message in the request's language. Apart from json-response.ts so the message catalogue loads
 * with the first error answer, not at start-up (docs/architecture.md §6.3).
 */
import type { AdapterError } from '../core/errors.js';
import { type Language, translate } from '../core/i18n/catalogue.js';
import { jsonResponse } from './json-response.js';
import { SERVER_BUSY_RETRY_AFTER_SECONDS } from './live-stream-gate.js';
import { httpStatusFor } from './status.js';

export function errorResponse(error: AdapterError, language: Language, headers: Record<string, string> = {}): Response {
  const body: Record<string, unknown> = { code: error.code, message: translate(error.messageKey, language) };
  if (error.details) body['details'] = error.details;
  const extra = error.code === 'SERVER_BUSY' ? { 'retry-after': String(SERVER_BUSY_RETRY_AFTER_SECONDS), ...headers } : headers;
  return jsonResponse(httpStatusFor(error.code), { error: body }, extra);
}
