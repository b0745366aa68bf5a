/**
 * The shape of a raw A2A stream (docs/architecture.md §9.7): what the emulator must share with the
 * real kernel's recordings, and nothing that differs from one run to the next.
 *
 * One line per item: its kind (task, statusUpdate, message, a JSON-RPC error code), its state, its
 * status message (role, how its id relates to the task id — `<task>-message` reused by every delta,
 * `<task>-<n>` for a final or status text — and the kinds of its parts), and every key of its
 * metadata with the JSON type of its value (numbers as `float` or `int` as they were written: the
 * kernel's metadata passes through protobuf and writes `8.0`), the values of the few keys that say
 * which signal an item is (`status`, `type`, `kind`, `retryable`, `complete`, `decision`); a tool's
 * argument names are data, not shape (`inputSummary.fields` keeps only its values' types). A task's
 * history is listed the same way. Texts, ids, timestamps and counts are left out. Consecutive equal
 * lines — the deltas of one text — collapse into one, marked `+`.
 */

import { mapJsonNumbers } from '../../lib/emulators/a2a/protobuf-numbers.js';

const FLOAT = '\u0000float';
const SIGNAL_KEYS = new Set(['status', 'type', 'kind', 'retryable', 'complete', 'decision']);
/** Objects whose keys are data (a tool's argument names), not shape: each value's type is kept, under `*`. */
const MAP_KEYS = new Set(['fields']);

/** JSON.parse, but a number written with a fraction or an exponent becomes a marker: its type survives. */
export function parseKeepingFloats(text: string): unknown {
  return JSON.parse(mapJsonNumbers(text, (literal) => (/[.eE]/.test(literal) ? JSON.stringify(FLOAT) : literal)));
}

function typeOf(value: unknown, key = ''): string {
  if (value === FLOAT) return 'float';
  if (typeof value === 'number') return 'int';
  if (typeof value === 'string' || typeof value === 'boolean') return SIGNAL_KEYS.has(key) ? JSON.stringify(value) : typeof value === 'string' ? 'string' : 'bool';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${[...new Set(value.map((entry) => typeOf(entry)))].sort().join('|')}]`;
  const record = value as Record<string, unknown>;
  if (MAP_KEYS.has(key)) return `{*:${[...new Set(Object.values(record).map((entry) => typeOf(entry)))].sort().join('|')}}`;
  return `{${Object.keys(record)
    .sort()
    .map((name) => `${name}:${typeOf(record[name], name)}`)
    .join(',')}}`;
}

type Json = Record<string, unknown>;

function messageShape(message: Json | undefined, taskId: string | undefined): string {
  if (!message) return '';
  const role = String(message['role'] ?? 'none')
    .replace(/^ROLE_/, '')
    .toLowerCase();
  const id = String(message['messageId'] ?? '');
  let idShape = '<other>';
  if (role === 'user') idShape = '<user>';
  else if (taskId && id === `${taskId}-message`) idShape = '<task>-message';
  else if (taskId && new RegExp(`^${taskId}-\\d+$`).test(id)) idShape = '<task>-<n>';
  else if (taskId && id.startsWith(`${taskId}-ack-`)) idShape = '<task>-ack';
  const parts = Array.isArray(message['parts']) ? (message['parts'] as Json[]) : [];
  const kinds = [...new Set(parts.map((part) => ['text', 'data', 'raw', 'url'].find((kind) => part[kind] !== undefined) ?? 'other'))].sort();
  return `(${role} ${idShape} ${kinds.join('+')})`;
}

function collapse(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const last = out.at(-1);
    if (last === line || last === `${line} +`) out[out.length - 1] = `${line} +`;
    else out.push(line);
  }
  return out;
}

function metadataShape(metadata: unknown): string {
  return metadata === undefined ? 'meta-' : `meta${typeOf(metadata)}`;
}

/** The shape line of one item (its JSON text as received). */
export function itemShape(text: string): string {
  const item = parseKeepingFloats(text) as Json;
  const error = item['error'] as Json | undefined;
  if (error) return `error ${typeOf(error['code']) === 'int' ? String(error['code']) : typeOf(error['code'])}`;
  const result = (item['result'] ?? {}) as Json;
  const key = ['task', 'statusUpdate', 'artifactUpdate', 'message'].find((name) => typeof result[name] === 'object');
  // A task answered as the result itself (GetTask, CancelTask) has the same shape as a streamed one.
  const kind = key ?? (result['status'] !== undefined ? 'task' : 'result');
  const value = (key ? result[key] : result) as Json;
  const taskId = String(value['taskId'] ?? value['id'] ?? '');
  if (kind === 'message') return `message ${messageShape(value, taskId)} ${metadataShape(value['metadata'])}`;
  const status = (value['status'] ?? {}) as Json;
  const state = String(status['state'] ?? '-').replace(/^TASK_STATE_/, '');
  const line = [kind, state, messageShape(status['message'] as Json | undefined, taskId), metadataShape(value['metadata'])];
  if (kind === 'task') {
    const history = Array.isArray(value['history']) ? (value['history'] as Json[]) : [];
    line.push(`history[${collapse(history.map((entry) => `${messageShape(entry, taskId)}${entry['metadata'] === undefined ? '' : ' meta'}`)).join(' ')}]`);
  }
  return line.filter(Boolean).join(' ');
}

/** The shape of a whole stream: its items' lines, equal neighbours collapsed. */
export function streamShape(items: readonly string[]): string[] {
  return collapse(items.map(itemShape));
}
