/**
 * How a request answered before the stream is logged. A refusal is the caller's business: info,
 * with the code and the failing fields. A 5xx (STATE_UNAVAILABLE and the like) means the adapter
 * itself could not serve it: warn, with the cause chain behind it (docs/architecture.md §5).
 */
import { errorFields } from '../core/error-fields.js';
import type { AdapterError } from '../core/errors.js';
import type { Logger } from '../core/ports.js';
import { httpStatusFor } from './status.js';

export function logRejection(logger: Logger, message: string, error: AdapterError): void {
  if (httpStatusFor(error.code) >= 500) logger.warn(message, { code: error.code, error: errorFields(error) });
  else logger.info(message, { code: error.code, details: error.details });
}
