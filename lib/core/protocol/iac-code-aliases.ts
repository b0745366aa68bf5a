/**
 * snake_case spellings of `forwardedProps.iacCode` fields (docs/protocol.md §3.5). The peer accepts
 * every field under its snake_case name as well (`ros_invocation_id`, `llm_api_key`,
 * `active_guidance`, …), so a client written for it works here unchanged. Before the strict schema
 * runs, each snake_case key is renamed to its camelCase field — at the top level and inside
 * `alibabaCloud` (`alibaba_cloud.access_key_id`); never inside `llmHeaders`, whose keys are header
 * names, nor `executionFence`, which is forwarded verbatim. The same field under both spellings is
 * an issue naming it. Unknown keys are left as given, so the schema still rejects them by the name
 * the caller used.
 *
 * The renamed object is also what the request digest hashes (docs/protocol.md §3.7): the same
 * request spelled either way is the same request for DUPLICATE_RUN_ID, and a camelCase body hashes
 * exactly as it always did.
 */
import type { FieldIssue } from '../errors.js';
import { formatPath } from './field-issues.js';
import { alibabaCloudSchema, iacCodeSchema } from './schemas.js';

/** Field name → the nested object fields that have aliases too. */
const NESTED: Readonly<Record<string, readonly string[]>> = { alibabaCloud: Object.keys(alibabaCloudSchema.shape) };
const TOP_FIELDS = Object.keys(iacCodeSchema.shape);

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export interface NormalisedIacCode {
  /** The object with every alias renamed (the input itself when it is not an object). */
  value: unknown;
  /** One issue per field given under both spellings. */
  issues: FieldIssue[];
  /** Maps a schema path (camelCase) back to the spelling the caller used, for error details. */
  respell: (path: readonly PropertyKey[]) => PropertyKey[];
}

interface Renamed {
  value: Record<string, unknown>;
  /** camelCase field → the snake_case key it was given under. */
  spelled: Map<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rename(raw: Record<string, unknown>, fields: readonly string[], path: string, issues: FieldIssue[]): Renamed {
  const value: Record<string, unknown> = { ...raw };
  const spelled = new Map<string, string>();
  for (const field of fields) {
    const alias = snakeCase(field);
    if (alias === field || !Object.hasOwn(raw, alias)) continue;
    if (Object.hasOwn(raw, field)) {
      issues.push({ path: `${path}.${alias}`, message: `Give ${field} or ${alias}, not both.` });
      delete value[alias];
      continue;
    }
    value[field] = raw[alias];
    delete value[alias];
    spelled.set(field, alias);
  }
  return { value, spelled };
}

export function normaliseIacCode(raw: unknown, prefix: string): NormalisedIacCode {
  const issues: FieldIssue[] = [];
  if (!isRecord(raw)) return { value: raw, issues, respell: (path) => [...path] };
  const top = rename(raw, TOP_FIELDS, prefix, issues);
  const nested = new Map<string, Map<string, string>>();
  for (const [field, fields] of Object.entries(NESTED)) {
    const inner = top.value[field];
    if (!isRecord(inner)) continue;
    const renamed = rename(inner, fields, formatPath([top.spelled.get(field) ?? field], prefix), issues);
    top.value[field] = renamed.value;
    nested.set(field, renamed.spelled);
  }
  const respell = (path: readonly PropertyKey[]): PropertyKey[] => {
    const [first, second, ...rest] = path;
    if (typeof first !== 'string') return [...path];
    const out: PropertyKey[] = [top.spelled.get(first) ?? first];
    if (second === undefined) return out;
    out.push(typeof second === 'string' ? (nested.get(first)?.get(second) ?? second) : second);
    return [...out, ...rest];
  };
  return { value: top.value, issues, respell };
}
