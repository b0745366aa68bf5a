/**
 * Required inputs announced by A2A (docs/protocol.md §5.1): `metadata.iac_code.input` plus every item of
 * `pendingPermissions`, only objects with `required === true`, de-duplicated by inputId (or by
 * canonical JSON when there is none). Each keeps an allow-listed projection — the only part that
 * is ever stored or shown — and whether it is answered through the sideband (SendMessage).
 */
import type { JsonObject } from '../a2a/wire-types.js';
import { canonicalJson } from '../canonical-json.js';
import { sha256Hex } from '../hash.js';

const ALLOWED_FIELDS = [
  'schemaVersion',
  'kind',
  'requestTaskId',
  'contextId',
  'inputId',
  'toolUseId',
  'toolName',
  'title',
  'purpose',
  'effect',
  'target',
  'isReadOnly',
  'prompt',
  'safeSummary',
  'options',
  'language',
  'deploymentSummary',
  'allowFreeText',
  'freeTextPrompt',
  'required',
  'scope',
  'subPipelineId',
  'operation',
  'displayParameters',
  'selector',
] as const;

export interface RequiredInput {
  id: string;
  input: JsonObject;
  sideband: boolean;
}

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

export function projectInput(raw: JsonObject): JsonObject {
  const projection: JsonObject = {};
  for (const field of ALLOWED_FIELDS) if (raw[field] !== undefined) projection[field] = raw[field];
  return projection;
}

function inputIdOf(raw: JsonObject): string {
  const id = raw['inputId'];
  if (typeof id === 'string' && id.length > 0) return id;
  return `input-${sha256Hex(canonicalJson(raw)).slice(0, 32)}`;
}

/** A direct input is sideband when it is candidate-scoped or names a sub-pipeline (docs/protocol.md §5.1). */
function isSidebandDirect(raw: JsonObject): boolean {
  return raw['scope'] === 'candidate' || typeof raw['subPipelineId'] === 'string';
}

/** Whether the item carries an input projection at all (an explicit empty list counts). */
export function hasInputProjection(iac: JsonObject): boolean {
  return iac['input'] !== undefined || iac['pendingPermissions'] !== undefined;
}

export function requiredInputs(iac: JsonObject): RequiredInput[] {
  // Most items carry neither: no map made per text delta.
  if (iac['input'] === undefined && iac['pendingPermissions'] === undefined) return [];
  const found = new Map<string, RequiredInput>();
  const add = (raw: JsonObject, sideband: boolean): void => {
    if (raw['required'] !== true) return;
    const id = inputIdOf(raw);
    const existing = found.get(id);
    if (existing) {
      existing.sideband ||= sideband;
      return;
    }
    found.set(id, { id, input: projectInput({ ...raw, inputId: id }), sideband });
  };
  const direct = record(iac['input']);
  if (direct) add(direct, isSidebandDirect(direct));
  const pending = iac['pendingPermissions'];
  if (Array.isArray(pending)) for (const item of pending) if (record(item)) add(item as JsonObject, true);
  return [...found.values()];
}
