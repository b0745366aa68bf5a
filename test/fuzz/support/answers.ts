/**
 * What every answer must be, whatever was sent (docs/protocol.md §2): never a 5xx; a refusal is
 * the JSON envelope `{error: {code, message, details?}}` with a known code and the status of that
 * code; a 200 stream passes the strict AG-UI oracle and verifyEvents and ends with RUN_FINISHED or
 * a RUN_ERROR whose code is known.
 */
import { ERROR_CODES } from '../../../lib/core/errors.js';
import { httpStatusFor } from '../../../lib/http/status.js';
import { assertValidAgUiStream } from '../../support/agui-oracle.js';
import { parseSse, type SseRecord } from '../../support/sse.js';

const KNOWN_CODES = new Set<string>(ERROR_CODES);

export type Answer =
  | { kind: 'refused'; status: number; code: string; message: string; paths: string[] }
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'stream'; sse: SseRecord; last: Record<string, unknown> };

export class AnswerViolation extends Error {}

function fail(what: string, sent: string): never {
  throw new AnswerViolation(`${what}\n  request: ${sent.length > 600 ? `${sent.slice(0, 600)}… (${sent.length} characters)` : sent}`);
}

/** Reads the whole answer and checks the invariants; `sent` describes the request for the failure message. */
export async function checkAnswer(response: Response, sent: string): Promise<Answer> {
  const text = await response.text();
  if (response.status >= 500) fail(`answered ${response.status}: ${text.slice(0, 400)}`, sent);
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    if (response.status !== 200) fail(`an SSE answer with status ${response.status}`, sent);
    let sse: SseRecord;
    try {
      sse = parseSse(text);
      await assertValidAgUiStream(sse.events);
    } catch (error) {
      return fail(`the stream is not valid AG-UI: ${error instanceof Error ? error.message : String(error)}\n  stream: ${text.slice(0, 1_500)}`, sent);
    }
    const last = sse.events.at(-1);
    if (!last || (last.type !== 'RUN_FINISHED' && last.type !== 'RUN_ERROR')) fail(`the stream did not end with a terminal event: ${JSON.stringify(last)}`, sent);
    if (last.type === 'RUN_ERROR' && !KNOWN_CODES.has(String(last['code']))) fail(`RUN_ERROR with an unknown code: ${JSON.stringify(last)}`, sent);
    return { kind: 'stream', sse, last };
  }
  if (!contentType.startsWith('application/json')) fail(`answered ${response.status} with content-type ${JSON.stringify(contentType)}: ${text.slice(0, 200)}`, sent);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail(`answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, sent);
  }
  if (response.status < 400) return { kind: 'json', status: response.status, body };
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || error.message === '')
    fail(`a refusal without the error envelope: ${text.slice(0, 300)}`, sent);
  if (!KNOWN_CODES.has(error.code)) fail(`a refusal with an unknown code: ${error.code}`, sent);
  if (httpStatusFor(error.code as (typeof ERROR_CODES)[number]) !== response.status) fail(`${error.code} answered with status ${response.status}`, sent);
  if (error.details !== undefined && !(Array.isArray(error.details) && error.details.every(isFieldIssue)))
    fail(`malformed details: ${JSON.stringify(error.details).slice(0, 300)}`, sent);
  const paths = Array.isArray(error.details) ? error.details.map((issue: { path: string }) => issue.path) : [];
  return { kind: 'refused', status: response.status, code: error.code, message: error.message, paths };
}

function isFieldIssue(value: unknown): boolean {
  const issue = value as { path?: unknown; message?: unknown } | null;
  return typeof issue?.path === 'string' && typeof issue.message === 'string';
}
