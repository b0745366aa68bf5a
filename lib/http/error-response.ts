/** The pre-stream error envelope `{"error": {code, message, details?}}` (SPEC §2), its message in the request's language. */
import type { AdapterError } from '../core/errors.js';
import { type Language, translate } from '../core/i18n/catalogue.js';
import { jsonResponse } from './json-response.js';
import { httpStatusFor } from './status.js';

export function errorResponse(error: AdapterError, language: Language, headers: Record<string, string> = {}): Response {
  const body: Record<string, unknown> = { code: error.code, message: translate(error.messageKey, language) };
  if (error.details) body['details'] = error.details;
  return jsonResponse(httpStatusFor(error.code), { error: body }, headers);
}
