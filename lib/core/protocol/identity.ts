/**
 * Identity strings a caller chooses (docs/protocol.md §1.4, §6.1): threadId, runId, parentRunId,
 * rosInvocationId, the user message id, interrupt ids, userId and cwd, and the ids of the cancel
 * body. Each is refused as INVALID_INPUT naming the field when it holds a lone UTF-16 surrogate:
 * UTF-8 — thread keys, A2A, logs — turns every lone surrogate into U+FFFD, so "x\ud800y",
 * "x\udbffy" and "x\ufffdy" would be one id downstream but three upstream.
 */
import * as z from 'zod/mini';
import './zod-messages.js';

/** threadId and runId (docs/protocol.md §1.4). */
export const MAX_ID_LENGTH = 1_024;
/** rosInvocationId, wherever a caller names it: a run, a cancel, a subscribe (docs/protocol.md §1.4). */
export const MAX_ROS_INVOCATION_ID_LENGTH = 256;
/** forwardedProps.iacCode.cwd (docs/protocol.md §3.6). */
export const MAX_CWD_LENGTH = 4_096;

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

export const LONE_SURROGATE_MESSAGE = 'Must not contain a lone UTF-16 surrogate.';

/** A string schema refused when it holds a lone surrogate. */
export function wellFormed<T extends z.ZodMiniString>(schema: T) {
  return schema.check(z.refine(isWellFormed, LONE_SURROGATE_MESSAGE));
}

/** A non-empty identity string of at most `max` characters, well-formed. */
export function identity(max?: number) {
  const base = z.string().check(z.minLength(1));
  return wellFormed(max === undefined ? base : base.check(z.maxLength(max)));
}
