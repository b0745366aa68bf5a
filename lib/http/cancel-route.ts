/**
 * `POST /extensions/iac-code/v1/executions/{executionId}/cancel` (docs/protocol.md §6.7): bearer, JSON,
 * a 64 KiB body `{threadId, rosInvocationId}`; answers `{executionId, status}` or 404
 * EXECUTION_NOT_FOUND.
 */
import { callerLogFields } from '../core/caller.js';
import { AdapterError } from '../core/errors.js';
import { languageFromAcceptLanguage, preferredLanguageOf } from '../core/i18n/language.js';
import type { Logger } from '../core/ports.js';
import { fieldIssues } from '../core/protocol/field-issues.js';
import { cancelBodySchema } from '../core/protocol/schemas.js';
import { cancelExecution } from '../core/run/cancel-execution.js';
import type { AppDeps } from './app.js';
import { jsonResponse } from './json-response.js';
import { rejectionResponse } from './rejection-log.js';
import { readProtectedJson } from './request-guards.js';
import { storeOf } from './store-of.js';

export const MAX_CANCEL_BODY_BYTES = 64 * 1024;

export async function handleCancel(request: Request, executionId: string, deps: AppDeps, logger: Logger): Promise<Response> {
  let language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  try {
    const { caller, body } = await readProtectedJson(request, deps, { limit: MAX_CANCEL_BODY_BYTES, tooLarge: 'cancelTooLarge' });
    language = preferredLanguageOf(body) ?? language;
    const parsed = cancelBodySchema.safeParse(body);
    if (!parsed.success) throw new AdapterError('INVALID_INPUT', 'invalidCancelBody', fieldIssues(parsed.error));
    const outcome = await cancelExecution(storeOf(deps, request, caller), deps.kernel, { executionId, ...parsed.data, caller }, logger);
    logger.info('execution cancel', { threadId: parsed.data.threadId, executionId, status: outcome.status, ...callerLogFields(caller) });
    return jsonResponse(200, outcome);
  } catch (error) {
    return rejectionResponse(error, logger, 'cancel rejected', language);
  }
}
