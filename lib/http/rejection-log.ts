/**
 * How a request answered before the stream is logged and answered. A refusal is the caller's
 * business: info, with the code, the failing fields and a refused token's reason. A 5xx
 * (STATE_UNAVAILABLE and the like) means the adapter itself could not serve it: warn, with the
 * cause chain behind it (docs/architecture.md §5). A person who named another person's thread is
 * answered as if it did not exist and logged at warn with both user ids' hashes (docs/protocol.md §6.3).
 */
import { userIdHash } from '../core/caller.js';
import { errorFields } from '../core/error-fields.js';
import { AdapterError } from '../core/errors.js';
import type { Language } from '../core/i18n/catalogue.js';
import type { Logger } from '../core/ports.js';
import { ForeignThread } from '../core/thread/ownership.js';
import { errorResponse } from './error-response.js';
import { httpStatusFor } from './status.js';

export function logRejection(logger: Logger, message: string, error: AdapterError): void {
  if (error.cause instanceof ForeignThread) {
    logger.warn(`${message}: the thread is another user's, answered as if it did not exist`, {
      code: error.code,
      threadId: error.cause.threadId,
      ownerUser: userIdHash(error.cause.ownerUserId),
      callerUser: userIdHash(error.cause.callerUserId),
    });
  } else if (httpStatusFor(error.code) >= 500) logger.warn(message, { code: error.code, error: errorFields(error) });
  else logger.info(message, { code: error.code, details: error.details, ...(error.reason === undefined ? {} : { reason: error.reason }) });
}

/**
 * What a route answers for anything thrown before its stream: an AdapterError is logged and answered
 * as the JSON envelope in `language` (docs/protocol.md §2.2); anything else is a bug and propagates
 * to the app's 500 INTERNAL_ERROR.
 */
export function rejectionResponse(error: unknown, logger: Logger, message: string, language: Language): Response {
  if (!(error instanceof AdapterError)) throw error;
  logRejection(logger, message, error);
  return errorResponse(error, language);
}
