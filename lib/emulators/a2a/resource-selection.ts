/**
 * `cloud_resource_selection` as the iac-code kernel raises and reads it (docs/protocol.md §5.2,
 * §7.13): the input under `metadata.iac_code.input`, and the strict parser of the answer text —
 * the prefix at the very start, then one compact JSON object and nothing else, exactly the keys of
 * its status, `schemaVersion` the integer 1, `contextId`/`requestTaskId` equal to the message's,
 * `inputId` `resource-<32 hex>`, strings at most 1,024 characters, a boolean `optionsEmpty`.
 * Every problem is a reason for the JSON-RPC invalid-params error
 * `resource_selection_resume_invalid: …` the kernel answers.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Json, TaskScript } from './task-script.js';

/** The prefix the emulator reads. Like the adapter's constant, its value is inferred, not read from the kernel (docs/protocol.md §7.13). */
export const RESOURCE_SELECTION_PREFIX = 'IAC_CODE_RESOURCE_SELECTION:';

export const RESOURCE_SELECTION_INVALID = 'resource_selection_resume_invalid';

const INPUT_ID = /^resource-[0-9a-f]{32}$/;
const MAX_STRING = 1024;
const SELECTED_KEYS = ['schemaVersion', 'kind', 'status', 'requestTaskId', 'contextId', 'inputId', 'toolUseId', 'selectorId', 'value', 'label'];
const CANCELED_KEYS = ['schemaVersion', 'kind', 'status', 'requestTaskId', 'contextId', 'inputId', 'toolUseId'];

export interface SelectorSpec {
  id: string;
  associationProperty: string;
  outputKind: string;
  associationPropertyMetadata: Json;
  source: Json | null;
}

/** The VPC selector, and a derived one whose value depends on another selection (`source`). */
export const VPC_SELECTOR: SelectorSpec = {
  id: 'vpc.vpc',
  associationProperty: 'ALIYUN::VPC::VPC::VPCId',
  outputKind: 'resource_id',
  associationPropertyMetadata: { RegionId: 'cn-hangzhou' },
  source: null,
};

export const REDIS_URL_SELECTOR: SelectorSpec = {
  id: 'redis.connection_url',
  associationProperty: 'ALIYUN::Redis::Instance::ConnectionUrl',
  outputKind: 'endpoint',
  associationPropertyMetadata: { RegionId: 'cn-hangzhou', Attribute: 'ConnectionString' },
  source: { selector_id: 'redis.instance', value: 'r-bp1example', association_property_metadata: { RegionId: 'cn-hangzhou' } },
};

export function resourceSelectionInput(script: TaskScript, toolUseId: string, selector: SelectorSpec, prompt: string): Json {
  return {
    schemaVersion: 1,
    kind: 'cloud_resource_selection',
    requestTaskId: script.taskId,
    contextId: script.contextId,
    inputId: `resource-${randomUUID().replace(/-/g, '')}`,
    toolUseId,
    prompt,
    required: true,
    selector: { ...selector, profileHash: `sha256:${'0'.repeat(64)}` },
    language: 'en',
  };
}

export interface ParsedSelection {
  answer: Json;
}

/** Where the answer came from: the message's identities and the input it answers. */
export interface SelectionContext {
  contextId: string | undefined;
  taskId: string | undefined;
}

/** Parses a prefixed answer text strictly; a string is the reason it is invalid. */
export function parseSelectionAnswer(text: string, context: SelectionContext): ParsedSelection | string {
  if (!text.startsWith(RESOURCE_SELECTION_PREFIX)) return 'the answer must start with the selection prefix';
  const body = text.slice(RESOURCE_SELECTION_PREFIX.length);
  // Nothing before or after the object: JSON.parse alone would accept surrounding whitespace.
  if (!body.startsWith('{') || !body.endsWith('}')) return 'malformed JSON';
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return 'malformed JSON';
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return 'malformed JSON';
  const record = answer as Json;
  const status = record['status'];
  if (status !== 'selected' && status !== 'canceled') return 'status must be selected or canceled';
  const required = status === 'selected' ? SELECTED_KEYS : CANCELED_KEYS;
  const optional = status === 'selected' ? ['source'] : ['optionsEmpty'];
  const keys = Object.keys(record);
  if (required.some((key) => !keys.includes(key)) || keys.some((key) => !required.includes(key) && !optional.includes(key))) return 'payload fields';
  if (typeof record['schemaVersion'] !== 'number' || record['schemaVersion'] !== 1) return 'schemaVersion must be the integer 1';
  if (record['kind'] !== 'cloud_resource_selection') return 'kind must be cloud_resource_selection';
  for (const key of keys) {
    const value = record[key];
    if (key !== 'schemaVersion' && key !== 'source' && key !== 'optionsEmpty' && typeof value !== 'string') return `${key} must be a string`;
    if (typeof value === 'string' && value.length > MAX_STRING) return `${key} is longer than ${MAX_STRING} characters`;
  }
  if (record['contextId'] !== context.contextId) return 'contextId does not match the message';
  if (record['requestTaskId'] !== context.taskId) return 'requestTaskId does not match the message';
  if (!INPUT_ID.test(record['inputId'] as string)) return 'inputId is malformed';
  if ('optionsEmpty' in record && typeof record['optionsEmpty'] !== 'boolean') return 'optionsEmpty must be a boolean';
  if (status === 'selected' && (record['value'] as string).length === 0) return 'value must not be empty';
  if ('source' in record && (typeof record['source'] !== 'object' || record['source'] === null || Array.isArray(record['source']))) return 'source must be an object';
  return { answer: record };
}

/** The kernel's re-validation against the open input: its ids, its selector and the selector's source. */
export function selectionMismatch(answer: Json, input: Json): string | undefined {
  if (answer['inputId'] !== input['inputId']) return 'no such pending resource selection';
  if (answer['toolUseId'] !== input['toolUseId']) return 'toolUseId does not match the pending selection';
  if (answer['status'] === 'canceled') return undefined;
  const selector = input['selector'] as Json;
  if (answer['selectorId'] !== selector['id']) return 'selectorId does not match the pending selection';
  const source = selector['source'] ?? undefined;
  if (!isDeepStrictEqual(answer['source'], source)) return 'source does not match the selector';
  return undefined;
}
