/**
 * iac-code pipeline envelopes (docs/protocol.md §8.1, §8.3, §8.4): where they come from in an item, the message id of
 * their text, and the key of the step they belong to.
 */
import type { JsonObject } from '../../a2a/wire-types.js';
import { pipelineMessagePrefix } from './message-ids.js';

/** Event types shown as CUSTOM `iac-code.pipeline.v1` (docs/protocol.md §8.5; the seed's list). */
export const CUSTOM_PIPELINE_TYPES = new Set([
  'backup_blocked',
  'candidate_completed',
  'candidate_detail_shown',
  'candidate_failed',
  'candidate_interrupted',
  'candidate_restart_requested',
  'candidate_selected',
  'candidate_started',
  'candidate_step_failed',
  'cleanup_completed',
  'cleanup_failed',
  'cleanup_progress',
  'cleanup_started',
  'context_compacted',
  'context_compaction_failed',
  'context_compaction_started',
  'diagram_shown',
  'fields_marked_stale',
  'mcp_status',
  'pipeline_completed',
  'pipeline_error',
  'pipeline_resumed',
  'pipeline_started',
  'pipeline_warning',
  'rollback_completed',
  'rollback_triggered',
  'stack_current_changed',
  'stack_instances_progress',
  'stack_progress',
  'step_failed',
  'sub_pipeline_completed',
  'sub_pipeline_started',
  'sub_step_failed',
  'tool_progress',
]);

export const STEP_OPENERS = new Set(['step_started', 'candidate_step_started', 'input_received']);
export const STEP_CLOSERS = new Set(['step_completed', 'step_failed', 'candidate_step_completed', 'candidate_step_failed']);

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Envelopes of an item: the batch first, then the single `pipeline` envelope (docs/protocol.md §8.1). */
export function envelopesOf(iac: JsonObject): JsonObject[] {
  const envelopes: JsonObject[] = [];
  const batch = record(iac['pipelineBatch'])?.['events'];
  if (Array.isArray(batch)) for (const event of batch) if (record(event)) envelopes.push(event as JsonObject);
  const single = record(iac['pipeline']);
  if (single) envelopes.push(single);
  return envelopes;
}

/**
 * `pipeline-message:<P>:<scope>` plus the coordinates of candidate, candidateStep and step (runId,
 * else id), de-duplicated (docs/protocol.md §8.3).
 */
export function pipelineMessageId(pipelineRunId: string, envelope: JsonObject): string {
  const parts = [pipelineMessagePrefix(pipelineRunId, text(envelope['scope']) ?? 'pipeline')];
  const seen = new Set<string>();
  for (const key of ['candidate', 'candidateStep', 'step']) {
    const coordinate = record(envelope[key]);
    const value = text(coordinate?.['runId']) ?? text(coordinate?.['id']);
    if (value && !seen.has(value)) {
      seen.add(value);
      parts.push(value);
    }
  }
  return parts.join(':');
}

/** `candidate:<candidate id | subPipelineId | runId>:<step id>` or `step:<step id>` (docs/protocol.md §8.4). */
export function stepKey(envelope: JsonObject): string | undefined {
  const stepId = text(record(envelope['candidateStep'])?.['id']) ?? text(record(envelope['step'])?.['id']);
  if (!stepId) return undefined;
  const candidate = record(envelope['candidate']);
  const candidateId = text(candidate?.['id']) ?? text(candidate?.['subPipelineId']) ?? text(candidate?.['runId']);
  return candidateId ? `candidate:${candidateId}:${stepId}` : `step:${stepId}`;
}

/** The AG-UI step name: the step id for parent steps, the key itself for candidate steps (docs/protocol.md §8.4). */
export function stepName(key: string): string {
  return key.startsWith('step:') ? key.slice('step:'.length) : key;
}
