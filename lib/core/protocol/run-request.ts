/**
 * A parsed POST / body → a validated RunRequest, or INVALID_INPUT naming every failing field
 * (SPEC §2–§3). Everything decidable from the request alone is decided here, before the stream.
 */

import type { WirePart } from '../a2a/wire-types.js';
import { canonicalJson } from '../canonical-json.js';
import { AdapterError, type FieldIssue } from '../errors.js';
import { sha256Hex } from '../hash.js';
import type { MessageKey } from '../i18n/catalogue.js';
import { fieldIssues } from './field-issues.js';
import { isWellFormed, LONE_SURROGATE_MESSAGE } from './identity.js';
import { envelopeSchema, type IacCodeProps, iacCodeSchema, type ResumeEntry } from './schemas.js';
import { userContentToParts } from './user-content.js';
import { checkWorkspace } from './workspace.js';

export interface RunRequest {
  threadId: string;
  runId: string;
  parentRunId: string | undefined;
  iacCode: IacCodeProps;
  /** The lexically normalised workspace (SPEC §3 `cwd`). */
  cwd: string;
  /** Present (even empty) exactly when the request is a resume (SPEC §2 "A request with a resume field"). */
  resume: ResumeEntry[] | undefined;
  /** The latest user message of a new run; undefined for a resume. */
  userMessage: { id: string; parts: WirePart[] } | undefined;
  /** SHA-256 of the canonical body: the run-id idempotency digest (contract §D.3). */
  digest: string;
}

export interface RunRequestOptions {
  allowedRoots: readonly string[];
}

export function parseRunRequest(body: unknown, options: RunRequestOptions): RunRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AdapterError('INVALID_INPUT', 'notObject', [{ path: '(body)', message: 'Expected a JSON object.' }]);
  }
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) throw new AdapterError('INVALID_INPUT', 'invalidEnvelope', fieldIssues(envelope.error));
  const input = envelope.data;

  const issues: FieldIssue[] = [];
  let key: MessageKey | undefined;
  const fail = (messageKey: MessageKey, found: FieldIssue[]): void => {
    key ??= messageKey;
    issues.push(...found);
  };

  const iacCode = iacCodeSchema.safeParse(input.forwardedProps.iacCode);
  if (!iacCode.success) fail('invalidForwardedProps', fieldIssues(iacCode.error, 'forwardedProps.iacCode'));
  if (iacCode.success && iacCode.data.llmHeaders != null && iacCode.data.llm_headers != null) {
    fail('invalidForwardedProps', [{ path: 'forwardedProps.iacCode.llm_headers', message: 'Give llmHeaders or llm_headers, not both.' }]);
  }
  if (input.tools.length > 0) fail('toolsNotSupported', [{ path: 'tools', message: 'Must be an empty list.' }]);

  let cwd = '';
  if (iacCode.success) {
    const workspace = checkWorkspace(iacCode.data.cwd, options.allowedRoots);
    if (workspace.ok) cwd = workspace.cwd;
    else if (workspace.reason === 'outsideRoots') fail('cwdOutsideRoots', [{ path: 'forwardedProps.iacCode.cwd', message: 'Outside the allowed roots.' }]);
    else
      fail('invalidForwardedProps', [{ path: 'forwardedProps.iacCode.cwd', message: workspace.reason === 'notAbsolute' ? 'Must be an absolute path.' : 'Must not contain "..".' }]);
  }
  if (key || !iacCode.success) throw new AdapterError('INVALID_INPUT', key ?? 'invalidForwardedProps', issues);

  // A resume ignores messages (SPEC §3); a new run needs the latest user message.
  let userMessage: RunRequest['userMessage'];
  if (input.resume === undefined) {
    const index = input.messages.findLastIndex((message) => message.role === 'user');
    if (index < 0) throw new AdapterError('INVALID_INPUT', 'userMessageRequired', [{ path: 'messages', message: 'No message with role "user".' }]);
    const message = input.messages[index] as { id?: string; content?: unknown };
    if (typeof message.id !== 'string' || message.id.length === 0) {
      throw new AdapterError('INVALID_INPUT', 'invalidUserContent', [{ path: `messages[${index}].id`, message: 'Required.' }]);
    }
    // Its id becomes the A2A messageId (docs/protocol.md §3.3): an identity, so well-formed.
    if (!isWellFormed(message.id)) throw new AdapterError('INVALID_INPUT', 'invalidEnvelope', [{ path: `messages[${index}].id`, message: LONE_SURROGATE_MESSAGE }]);
    userMessage = { id: message.id, parts: userContentToParts(message.content, `messages[${index}].content`) };
  }

  return {
    threadId: input.threadId,
    runId: input.runId,
    parentRunId: input.parentRunId,
    iacCode: iacCode.data,
    cwd,
    resume: input.resume,
    userMessage,
    digest: sha256Hex(canonicalJson(body)),
  };
}
