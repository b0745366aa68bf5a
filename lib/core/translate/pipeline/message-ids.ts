/**
 * The ids of pipeline text and reasoning messages (docs/protocol.md §8.3), owned here: the pipeline
 * lane makes them, and whoever must tell them from agent text asks here — what is journaled when
 * (lib/core/journal/durability.ts: pipeline text is in no task history) and the spans a run left
 * open (lib/core/journal/open-spans.ts).
 */
const PIPELINE_MESSAGE = 'pipeline-message:';
const REASONING = 'reasoning-';

/** `pipeline-message:<P>:<scope>…` (envelope.ts `pipelineMessageId` adds the coordinates). */
export function pipelineMessagePrefix(pipelineRunId: string, scope: string): string {
  return `${PIPELINE_MESSAGE}${pipelineRunId}:${scope}`;
}

/** The reasoning message that belongs to a pipeline text message. */
export function pipelineReasoningId(messageId: string): string {
  return `${REASONING}${messageId}`;
}

export function isPipelineText(messageId: string): boolean {
  return messageId.startsWith(PIPELINE_MESSAGE);
}

export function isPipelineReasoning(messageId: string): boolean {
  return messageId.startsWith(`${REASONING}${PIPELINE_MESSAGE}`);
}
