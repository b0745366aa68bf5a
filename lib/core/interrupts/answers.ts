/**
 * Resume answers (docs/protocol.md §5.3, §5.5): digests that make a repeated answer
 * recognisable, validation against the interrupt's responseSchema with a real JSON Schema
 * validator, and the A2A form of each answer — a six-key permission data part, or the plain text
 * of a question or option choice.
 *
 * The validator is @cfworker/json-schema (draft 7), which interprets a schema where Ajv compiles
 * it to code: a fifth of Ajv's weight in the function bundle (docs/architecture.md §9.6), and no
 * compiled function kept per option set. test/unit/answer-validation.test.ts holds its verdicts to
 * Ajv's on generated answers for every schema the adapter publishes.
 */
import { Validator } from '@cfworker/json-schema';
import type { JsonObject, WirePart } from '../a2a/wire-types.js';
import { canonicalJson } from '../canonical-json.js';
import { sha256Hex } from '../hash.js';
import type { ResumeEntry } from '../protocol/schemas.js';
import type { PendingInterrupt } from '../thread/document.js';
import { isPermission, responseSchemaFor } from './interrupt-object.js';
import { standardOptions } from './options.js';
import { isResourceSelection, isValidCancelPayload } from './resource-selection.js';

/** Whether `value` is valid against `schema` (JSON Schema draft 7). */
export function matchesSchema(schema: JsonObject, value: unknown): boolean {
  return new Validator(schema as ConstructorParameters<typeof Validator>[0], '7').validate(value).valid;
}

export function answerDigest(entry: ResumeEntry): string {
  return sha256Hex(canonicalJson({ status: entry.status, payload: entry.payload ?? null }));
}

/**
 * Whether the entry is an acceptable answer: `resolved` needs a payload valid against the schema;
 * a cancelled permission is validated as `{decision: "deny"}`; a cancelled resource selection may
 * carry only `{optionsEmpty: boolean}` (docs/protocol.md §5.3); a cancelled question needs nothing.
 */
export function isValidAnswer(pending: PendingInterrupt, entry: ResumeEntry): boolean {
  const permission = isPermission(pending.input);
  if (entry.status === 'cancelled' && isResourceSelection(pending.input)) return isValidCancelPayload(entry.payload);
  if (entry.status === 'cancelled') return permission ? matchesSchema(responseSchemaFor(pending.input), { decision: 'deny' }) : true;
  if (entry.payload === undefined) return false;
  return matchesSchema(responseSchemaFor(pending.input), entry.payload);
}

export function permissionDecision(entry: ResumeEntry): 'allow_once' | 'deny' {
  if (entry.status === 'cancelled') return 'deny';
  return (entry.payload as { decision: 'allow_once' | 'deny' }).decision;
}

/** The one part of a permission answer: exactly the six keys the kernel accepts (docs/protocol.md §5.3). */
export function permissionAnswerPart(pending: PendingInterrupt, taskId: string, entry: ResumeEntry): WirePart {
  return {
    data: {
      schemaVersion: 1,
      kind: 'permission',
      requestTaskId: taskId,
      inputId: pending.id,
      toolUseId: String(pending.input['toolUseId'] ?? ''),
      decision: permissionDecision(entry),
    },
    mediaType: 'application/json',
  };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Free text wins; else the chosen option's label, name or id; else the id itself (docs/protocol.md §5.3). */
export function answerText(pending: PendingInterrupt, payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const record = payload as Record<string, unknown>;
  const free = nonEmpty(record['freeText']) ?? nonEmpty(record['free_text']);
  if (free) return free;
  const selected = nonEmpty(record['selectedId']) ?? nonEmpty(record['selected_id']);
  if (!selected) return undefined;
  const option = standardOptions(pending.input['options']).find((candidate) => candidate.id === selected);
  if (!option) return selected;
  const raw = typeof option.raw === 'object' && option.raw !== null ? (option.raw as Record<string, unknown>) : {};
  return nonEmpty(raw['label']) ?? nonEmpty(raw['name']) ?? option.id;
}
