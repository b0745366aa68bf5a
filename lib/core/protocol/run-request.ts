/**
 * A parsed POST / body → a validated RunRequest, or INVALID_INPUT naming every failing field
 * (docs/protocol.md §2.1, §3). Everything decidable from the request alone is decided here, before the stream.
 */

import type { WirePart } from '../a2a/wire-types.js';
import type { Caller } from '../caller.js';
import { canonicalJson } from '../canonical-json.js';
import { AdapterError, type FieldIssue } from '../errors.js';
import { sha256Hex } from '../hash.js';
import type { MessageKey } from '../i18n/catalogue.js';
import { echoedBytes, MAX_GUIDANCE_TEXT_BYTES, tooLongMessage } from './echo-size.js';
import { fieldIssues, formatPath } from './field-issues.js';
import { normaliseIacCode } from './iac-code-aliases.js';
import { isWellFormed, LONE_SURROGATE_MESSAGE } from './identity.js';
import { envelopeSchema, type IacCodeProps, iacCodeSchema, type ResumeEntry } from './schemas.js';
import { userContentToParts } from './user-content.js';
import { checkWorkspace } from './workspace.js';

export interface RunRequest {
  threadId: string;
  runId: string;
  parentRunId: string | undefined;
  iacCode: IacCodeProps;
  /** The lexically normalised workspace (docs/protocol.md §3.6). */
  cwd: string;
  /** Present (even empty) exactly when the request is a resume (docs/protocol.md §3.2). */
  resume: ResumeEntry[] | undefined;
  /**
   * The latest user message of a new run; undefined for a resume. `contentPath` names its content
   * in error details (`messages[N].content`); part i of `parts` comes from content part i.
   */
  userMessage: { id: string; parts: WirePart[]; contentPath: string } | undefined;
  /** SHA-256 of the canonical body, iacCode spelled in camelCase: the run-id idempotency digest (docs/protocol.md §3.7). */
  digest: string;
  /** Who sent it (docs/protocol.md §1.2): a person's `iacCode.userId` is their token's claim. */
  caller: Caller;
}

export interface RunRequestOptions {
  allowedRoots: readonly string[];
  caller: Caller;
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

  // snake_case spellings become the camelCase fields first (docs/protocol.md §3.5).
  const aliased = normaliseIacCode(input.forwardedProps.iacCode, 'forwardedProps.iacCode');
  if (aliased.issues.length > 0) fail('invalidForwardedProps', aliased.issues);
  const iacCode = iacCodeSchema.safeParse(aliased.value);
  if (!iacCode.success) fail('invalidForwardedProps', fieldIssues(iacCode.error, 'forwardedProps.iacCode', aliased.respell));
  if (input.tools.length > 0) fail('toolsNotSupported', [{ path: 'tools', message: 'Must be an empty list.' }]);

  let cwd = '';
  if (iacCode.success) {
    const workspace = checkWorkspace(iacCode.data.cwd, options.allowedRoots);
    if (workspace.ok) cwd = workspace.cwd;
    else if (workspace.reason === 'outsideRoots') fail('cwdOutsideRoots', [{ path: 'forwardedProps.iacCode.cwd', message: 'Outside the allowed roots.' }]);
    else
      fail('invalidForwardedProps', [{ path: 'forwardedProps.iacCode.cwd', message: workspace.reason === 'notAbsolute' ? 'Must be an absolute path.' : 'Must not contain "..".' }]);
  }
  // A person acts as themselves: a declared userId that is not theirs is a mistake to say, not to overrule (docs/protocol.md §3.5).
  const { caller } = options;
  if (iacCode.success && caller.kind === 'person' && iacCode.data.userId != null && iacCode.data.userId !== caller.userId) {
    fail('userIdNotSignedIn', [
      { path: formatPath(aliased.respell(['userId']), 'forwardedProps.iacCode'), message: 'Must be the signed-in user id (the token’s claim), or absent.' },
    ]);
  }
  if (key || !iacCode.success) throw new AdapterError('INVALID_INPUT', key ?? 'invalidForwardedProps', issues);
  const props = caller.kind === 'person' ? { ...iacCode.data, userId: caller.userId } : iacCode.data;

  // A resume ignores messages (docs/protocol.md §3.2); a new run needs the latest user message.
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
    const contentPath = `messages[${index}].content`;
    userMessage = { id: message.id, parts: userContentToParts(message.content, contentPath), contentPath };
    if (props.activeGuidance) checkGuidanceText(userMessage.parts, contentPath);
  }

  return {
    threadId: input.threadId,
    runId: input.runId,
    parentRunId: input.parentRunId,
    iacCode: props,
    cwd,
    resume: input.resume,
    userMessage,
    // The digest hashes the body with iacCode as renamed, so either spelling is the same request
    // (docs/protocol.md §3.7); a camelCase body hashes exactly as before.
    digest: sha256Hex(canonicalJson({ ...body, forwardedProps: { ...(body as { forwardedProps: object }).forwardedProps, iacCode: aliased.value } })),
    caller,
  };
}

/** A guidance message's text is bounded by what its echo on the owning run's stream may take (echo-size.ts). */
function checkGuidanceText(parts: readonly WirePart[], contentPath: string): void {
  const texts = parts.flatMap((part) => (typeof part.text === 'string' ? [part.text] : []));
  if (echoedBytes(texts.join('')) <= MAX_GUIDANCE_TEXT_BYTES) return;
  throw new AdapterError('INVALID_INPUT', 'invalidUserContent', [{ path: contentPath, message: tooLongMessage(MAX_GUIDANCE_TEXT_BYTES, 'Guidance text too long') }]);
}
