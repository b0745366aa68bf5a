/**
 * The pre-stream error envelope `{"error": {code, message, reason?, details?}}` (docs/protocol.md
 * §2.2), its message in the request's language. Apart from json-response.ts so the message
 * catalogue loads with the first error answer, not at start-up (docs/architecture.md §6.3).
 *
 * A 401 says how to authenticate (RFC 6750 §3): `WWW-Authenticate: Bearer`, and for a token that was
 * looked at and refused `error="invalid_token"` with the refusal's English sentence.
 */
import type { AdapterError } from '../core/errors.js';
import { type Language, translate } from '../core/i18n/catalogue.js';
import { jsonResponse } from './json-response.js';
import { SERVER_BUSY_RETRY_AFTER_SECONDS } from './live-stream-gate.js';
import { httpStatusFor } from './status.js';

/** RFC 6750's error_description allows printable ASCII but `"` and `\`. */
function quotable(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}

function challenge(error: AdapterError): string {
  if (error.reason === undefined) return 'Bearer';
  return `Bearer error="invalid_token", error_description="${quotable(translate(error.messageKey, 'en'))}"`;
}

export function errorResponse(error: AdapterError, language: Language, headers: Record<string, string> = {}): Response {
  const body: Record<string, unknown> = { code: error.code, message: translate(error.messageKey, language) };
  if (error.reason !== undefined) body['reason'] = error.reason;
  if (error.details) body['details'] = error.details;
  let extra = headers;
  if (error.code === 'SERVER_BUSY' || error.code === 'IDENTITY_PROVIDER_UNAVAILABLE') extra = { 'retry-after': String(SERVER_BUSY_RETRY_AFTER_SECONDS), ...headers };
  if (error.code === 'UNAUTHORIZED') extra = { 'www-authenticate': challenge(error), ...headers };
  return jsonResponse(httpStatusFor(error.code), { error: body }, extra);
}
