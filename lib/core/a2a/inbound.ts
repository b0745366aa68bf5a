/**
 * Unwrapping one A2A stream item or task snapshot into the facts the adapter reads
 * (docs/protocol.md §7.4). Flat v0.3-style objects are accepted too: when none of the four 1.0 keys is
 * present the object itself is read.
 */
import type { JsonObject, WireMessage, WireStreamItem, WireTask } from './wire-types.js';

export type ItemKind = 'task' | 'statusUpdate' | 'artifactUpdate' | 'message';

export interface InboundItem {
  kind: ItemKind;
  taskId: string | undefined;
  contextId: string | undefined;
  /** Normalised: lower-case, no `task_state_` prefix, `_` → `-` ("input-required"). */
  state: string | undefined;
  /** `metadata.iac_code`, or an empty object. */
  iac: JsonObject;
  sessionId: string | undefined;
  statusMessage: WireMessage | undefined;
  history: WireMessage[];
  /** The transport left the task's history out: too large for the SDK (sse-history-trim.ts); read it with GetTask. */
  historyOmitted?: true;
  artifacts: JsonObject[];
}

/** The task metadata key under which the adapter's own transport marks what it left out of an event. */
export const OMITTED_KEY = 'iac_code_agui';

export const TERMINAL_STATES = new Set(['completed', 'failed', 'rejected', 'canceled', 'auth-required']);

export function normaliseState(state: unknown): string | undefined {
  if (typeof state !== 'string' || state.length === 0) return undefined;
  let normalised = normalisedStates.get(state);
  if (normalised === undefined) {
    const lower = state.toLowerCase();
    const bare = lower.startsWith('task_state_') ? lower.slice('task_state_'.length) : lower;
    normalised = bare.replace(/_/g, '-').replace('cancelled', 'canceled');
    // A handful of spellings in practice; bounded all the same, as the kernel names them.
    if (normalisedStates.size < 64) normalisedStates.set(state, normalised);
  }
  return normalised;
}

/** Every item carries a state (every text delta too): each spelling is normalised once. */
const normalisedStates = new Map<string, string>();

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** First non-empty of iacCodeSessionId, pipeline.iacCodeSessionId, pipelineBatch.events[].iacCodeSessionId. */
export function sessionIdOf(iac: JsonObject): string | undefined {
  const direct = nonEmptyString(iac['iacCodeSessionId']) ?? nonEmptyString(record(iac['pipeline'])?.['iacCodeSessionId']);
  if (direct) return direct;
  const events = record(iac['pipelineBatch'])?.['events'];
  if (!Array.isArray(events)) return undefined;
  for (const event of events) {
    const found = nonEmptyString(record(event)?.['iacCodeSessionId']);
    if (found) return found;
  }
  return undefined;
}

const ITEM_KINDS: readonly ItemKind[] = ['task', 'statusUpdate', 'artifactUpdate', 'message'];

export function unwrapItem(item: WireStreamItem): InboundItem {
  const source = item as Record<string, unknown>;
  let kind: ItemKind | undefined;
  for (const key of ITEM_KINDS) {
    if (record(source[key]) !== undefined) {
      kind = key;
      break;
    }
  }
  const inner = (kind ? source[kind] : source) as JsonObject;
  const status = record(inner['status']);
  const iac = record(record(inner['metadata'])?.['iac_code']) ?? {};
  const artifact = record(inner['artifact']);
  const artifacts = artifact ? [artifact] : Array.isArray(inner['artifacts']) ? (inner['artifacts'] as JsonObject[]) : [];
  return {
    kind: kind ?? (status ? 'statusUpdate' : 'message'),
    taskId: nonEmptyString(inner['taskId']) ?? (kind === 'task' || !kind ? nonEmptyString(inner['id']) : undefined),
    contextId: nonEmptyString(inner['contextId']),
    state: normaliseState(status?.['state']),
    iac,
    sessionId: sessionIdOf(iac),
    statusMessage: record(status?.['message']) as WireMessage | undefined,
    history: kind === 'task' && Array.isArray(inner['history']) ? (inner['history'] as WireMessage[]) : [],
    ...(kind === 'task' && historyOmitted(inner) ? { historyOmitted: true as const } : {}),
    artifacts,
  };
}

export function unwrapTask(task: WireTask): InboundItem {
  return unwrapItem({ task });
}

/** Concatenated text parts of an agent message (role ROLE_AGENT, `agent`, or none). */
export function agentText(message: WireMessage | undefined): string | undefined {
  if (!message || !Array.isArray(message.parts)) return undefined;
  const role = typeof message.role === 'string' ? message.role.toLowerCase() : '';
  if (role && role !== 'role_agent' && role !== 'agent') return undefined;
  const text = message.parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
  return text.length > 0 ? text : undefined;
}

function historyOmitted(task: JsonObject): boolean {
  const metadata = task['metadata'];
  if (typeof metadata !== 'object' || metadata === null) return false;
  const own = (metadata as Record<string, unknown>)[OMITTED_KEY];
  return typeof own === 'object' && own !== null && (own as Record<string, unknown>)['historyOmitted'] === true;
}
