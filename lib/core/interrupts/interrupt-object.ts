/**
 * The AG-UI interrupt for a pending A2A input (docs/protocol.md §5.2): `id`, `reason`, `message`, `responseSchema`, `toolCallId`, `metadata`. No `expiresAt`:
 * the adapter imposes no deadline (docs/protocol.md §5.2).
 */
import type { Interrupt } from '@ag-ui/core';
import type { JsonObject } from '../a2a/wire-types.js';
import { type Language, translate } from '../i18n/catalogue.js';
import { normaliseLanguage } from '../i18n/language.js';
import type { PendingInterrupt } from '../thread/document.js';
import { type StandardOption, standardOptions } from './options.js';
import { isResourceSelection, RESOURCE_SELECTION_SCHEMA } from './resource-selection.js';

export const PERMISSION_SCHEMA = {
  type: 'object',
  required: ['decision'],
  properties: { decision: { type: 'string', enum: ['allow_once', 'deny'] } },
  additionalProperties: false,
} as const;

export function isPermission(input: JsonObject): boolean {
  return input['kind'] === 'permission';
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}

/** oneOf: one branch per option, plus free text when allowed or when there are no options. */
export function choiceSchema(options: StandardOption[], allowFreeText: boolean): JsonObject {
  const branches: JsonObject[] = options.map((option) => ({
    type: 'object',
    title: option.title,
    required: ['selectedId'],
    properties: { selectedId: { const: option.id, title: option.title } },
    additionalProperties: false,
  }));
  if (allowFreeText || options.length === 0) {
    branches.push({ type: 'object', required: ['freeText'], properties: { freeText: { type: 'string', minLength: 1 } }, additionalProperties: false });
  }
  return { oneOf: branches };
}

export function responseSchemaFor(input: JsonObject): JsonObject {
  if (isPermission(input)) return structuredClone(PERMISSION_SCHEMA) as unknown as JsonObject;
  if (isResourceSelection(input)) return structuredClone(RESOURCE_SELECTION_SCHEMA) as unknown as JsonObject;
  return choiceSchema(standardOptions(input['options']), Boolean(input['allowFreeText']));
}

export function toInterrupt(pending: PendingInterrupt): Interrupt {
  const { input } = pending;
  const language: Language = normaliseLanguage(input['language']) ?? 'en';
  const options = standardOptions(input['options']);
  let message: string;
  if (isPermission(input)) {
    message = nonEmpty(input['prompt']) ?? nonEmpty(input['title']) ?? translate('permissionRequired', language);
  } else if (isResourceSelection(input)) {
    // A resource selection has no options to list: its prompt, else the fallback (docs/protocol.md §5.2).
    message = nonEmpty(input['prompt']) ?? translate('inputRequired', language);
  } else {
    const lines = [nonEmpty(input['prompt']) ?? translate('inputRequired', language), ...options.map((option) => `- ${option.id}: ${option.title}`)];
    message = lines.join('\n');
  }
  const interrupt: Interrupt = {
    id: pending.id,
    reason: isPermission(input) ? 'tool_call' : 'input_required',
    message,
    responseSchema: responseSchemaFor(input),
    metadata: { schemaVersion: 1, ...input, standardOptions: options.map(({ id, title }) => ({ id, title })) },
  };
  const toolUseId = input['toolUseId'];
  if (typeof toolUseId === 'string' && toolUseId.length > 0) interrupt.toolCallId = toolUseId;
  return interrupt;
}
