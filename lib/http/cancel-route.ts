/**
 * `POST /extensions/iac-code/v1/executions/{executionId}/cancel` (docs/protocol.md §6.7): bearer, JSON,
 * a 64 KiB body `{threadId, rosInvocationId}`; answers `{executionId, status}` or 404
 * EXECUTION_NOT_FOUND.
 */
import { AdapterError } from '../core/errors.js';
import { languageFromAcceptLanguage, preferredLanguageOf } from '../core/i18n/language.js';
import type { Logger } from '../core/ports.js';
import { fieldIssues } from '../core/protocol/field-issues.js';
import { cancelBodySchema } from '../core/protocol/schemas.js';
import { cancelExecution } from '../core/run/cancel-execution.js';
import type { AppDeps } from './app.js';
import { errorResponse, jsonResponse } from './json-response.js';
import { DEFAULT_BODY_TIMEOUT_MS } from './read-body.js';
import { logRejection } from './rejection-log.js';
import { checkBearer, checkJsonContentType, readJsonBody } from './request-guards.js';
import { storeOf } from './store-of.js';

export const MAX_CANCEL_BODY_BYTES = 64 * 1024;

export async function handleCancel(request: Request, executionId: string, deps: AppDeps, logger: Logger): Promise<Response> {
  let language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  try {
    checkBearer(request, deps.config.authToken);
    checkJsonContentType(request);
    const body = await readJsonBody(request, { limit: MAX_CANCEL_BODY_BYTES, tooLarge: 'cancelTooLarge', timeoutMs: deps.config.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS });
    language = preferredLanguageOf(body) ?? language;
    const parsed = cancelBodySchema.safeParse(body);
    if (!parsed.success) throw new AdapterError('INVALID_INPUT', 'invalidCancelBody', fieldIssues(parsed.error));
    const outcome = await cancelExecution(storeOf(deps, request), deps.kernel, { executionId, ...parsed.data }, logger);
    logger.info('execution cancel', { threadId: parsed.data.threadId, executionId, status: outcome.status });
    return jsonResponse(200, outcome);
  } catch (error) {
    if (error instanceof AdapterError) {
      logRejection(logger, 'cancel rejected', error);
      return errorResponse(error, language);
    }
    throw error;
  }
}
