/**
 * The `cloud_resource_selection` interrupt kind (docs/protocol.md §5.2, §5.3, §7.13): its answer
 * schema, what a cancelled answer may carry, the selector checks made before anything is sent, and
 * the exact text the kernel reads — the prefix immediately followed by compact JSON whose keys come
 * in a fixed order. There is no selector-profile registry here: the adapter checks the schema, the
 * kernel checks the value.
 */
import type { JsonObject } from '../a2a/wire-types.js';
import type { ResumeEntry } from '../protocol/schemas.js';
import type { PendingInterrupt } from '../thread/document.js';

export const RESOURCE_SELECTION_KIND = 'cloud_resource_selection';

/**
 * The marker the kernel looks for at the very start of a selection answer. Its value is inferred,
 * not read: the kernel source that defines it was not readable, its tests refuse
 * `IAC_CODE_RESOURCE_SELECTION:{…}` in the middle of a sentence, and the permission analogue is
 * `IAC_CODE_PERMISSION:` (docs/protocol.md §7.13). Confirm against a live kernel; change it here only.
 */
export const RESOURCE_SELECTION_PREFIX = 'IAC_CODE_RESOURCE_SELECTION:';

/** A chosen value (with an optional label), or free text. Closed objects, as the peer's. */
export const RESOURCE_SELECTION_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      required: ['value'],
      properties: { value: { type: 'string', minLength: 1 }, label: { type: 'string' } },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['freeText'],
      properties: { freeText: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    },
  ],
} as const;

export function isResourceSelection(input: JsonObject): boolean {
  return input['kind'] === RESOURCE_SELECTION_KIND;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A cancelled selection carries no payload, null, or exactly `{optionsEmpty: boolean}`. */
export function isValidCancelPayload(payload: unknown): boolean {
  if (payload === undefined || payload === null) return true;
  return isObject(payload) && Object.keys(payload).length === 1 && typeof payload['optionsEmpty'] === 'boolean';
}

/**
 * The stored input cannot be answered as the kernel expects: no selector id, no toolUseId, or a
 * selector source that is neither null nor an object. Checked before anything is sent.
 */
export function selectorProblem(input: JsonObject): string | undefined {
  const selector = input['selector'];
  if (!isObject(selector) || typeof selector['id'] !== 'string' || selector['id'].length === 0) return 'the selection has no selector id';
  const toolUseId = input['toolUseId'];
  if (typeof toolUseId !== 'string' || toolUseId.length === 0) return 'the selection has no toolUseId';
  const source = selector['source'];
  if (source !== undefined && source !== null && !isObject(source)) return 'the selector source is neither null nor an object';
  return undefined;
}

export interface SelectionIds {
  /** The stored A2A task (the message's taskId; the kernel checks they are equal). */
  taskId: string;
  contextId: string;
}

/** value + label of a resolved answer: `label` defaults to the value; free text is both. */
export function chosenSelection(payload: unknown): { value: string; label: string } {
  const record = payload as { value?: string; label?: string; freeText?: string };
  if (record.value !== undefined) return { value: record.value, label: record.label ?? record.value };
  const text = record.freeText as string;
  return { value: text, label: text };
}

/** The selection object, keys in the order the kernel's encoder writes them. */
export function selectionResponse(pending: PendingInterrupt, entry: ResumeEntry, ids: SelectionIds): JsonObject {
  const { input } = pending;
  const head: JsonObject = {
    schemaVersion: 1,
    kind: RESOURCE_SELECTION_KIND,
    status: entry.status === 'resolved' ? 'selected' : 'canceled',
    requestTaskId: ids.taskId,
    contextId: ids.contextId,
    inputId: pending.id,
    toolUseId: String(input['toolUseId']),
  };
  if (entry.status === 'cancelled') {
    const payload = entry.payload as { optionsEmpty?: boolean } | null | undefined;
    return payload?.optionsEmpty === undefined ? head : { ...head, optionsEmpty: payload.optionsEmpty };
  }
  const selector = input['selector'] as JsonObject;
  const { value, label } = chosenSelection(entry.payload);
  const response: JsonObject = { ...head, selectorId: selector['id'] as string, value, label };
  if (selector['source'] !== undefined && selector['source'] !== null) response['source'] = selector['source'];
  return response;
}

/** The one text part sent to the kernel: the prefix, then compact JSON (no spaces, non-ASCII kept). */
export function resourceSelectionText(pending: PendingInterrupt, entry: ResumeEntry, ids: SelectionIds): string {
  return `${RESOURCE_SELECTION_PREFIX}${JSON.stringify(selectionResponse(pending, entry, ids))}`;
}
