/**
 * The body of `POST …/executions/{executionId}/subscribe` (docs/protocol.md §6.14): exactly
 * `threadId`, `runId` and `rosInvocationId` as non-empty strings, plus an optional
 * `afterSequence` of any type — an event id when it is a string (docs/protocol.md §6.15), ignored
 * otherwise, as the peer's clients send it. Any other key is refused.
 */
import * as z from 'zod/mini';
import type { Caller } from '../caller.js';
import { AdapterError } from '../errors.js';
import { fieldIssues } from '../protocol/field-issues.js';
import { identity, MAX_ID_LENGTH, MAX_ROS_INVOCATION_ID_LENGTH } from '../protocol/identity.js';

// The same identity rules as POST / (docs/protocol.md §1.4): bounded, and no lone surrogates.
const observationBodySchema = z.strictObject({
  threadId: identity(MAX_ID_LENGTH),
  runId: identity(MAX_ID_LENGTH),
  rosInvocationId: identity(MAX_ROS_INVOCATION_ID_LENGTH),
  afterSequence: z.optional(z.unknown()),
});

/** Who asks to observe which execution. */
export interface ObservationRequest {
  /** The path's `{executionId}`, percent-decoded. */
  executionId: string;
  threadId: string;
  runId: string;
  rosInvocationId: string;
  /** As sent (lib/core/reattach/requested-position.ts reads it). */
  afterSequence: unknown;
  /** Who asks (docs/protocol.md §1.2): a person may observe only their own threads. */
  caller: Caller;
}

/** 400 INVALID_INPUT naming every failing field (docs/protocol.md §2.2). */
export function parseObservationRequest(body: unknown, executionId: string, caller: Caller): ObservationRequest {
  const parsed = observationBodySchema.safeParse(body);
  if (!parsed.success) throw new AdapterError('INVALID_INPUT', 'invalidSubscribeBody', fieldIssues(parsed.error));
  const { threadId, runId, rosInvocationId, afterSequence } = parsed.data;
  return { executionId, threadId, runId, rosInvocationId, afterSequence, caller };
}
