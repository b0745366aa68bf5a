/**
 * Any thrown value as structured log fields (docs/architecture.md §5 "Errors and logging"): its
 * name, code, message and stack, the ids an adapter attached when it translated a vendor failure
 * (HTTP status, JSON-RPC code, OSS request id, store kind), and its `cause` chain — bounded in
 * depth and safe against cycles, so every logged failure can be followed back to where it began.
 *
 * Only the fields named below are read. Whatever else a vendor hangs on an error (request
 * parameters, headers, response bodies) never reaches a log line through this helper; the logger's
 * redaction (lib/adapters/logger.ts) stands behind it. Pure: no Node or SDK import.
 */

export interface ErrorFields {
  name: string;
  message: string;
  /** AdapterError / RunFailure code, Node's system error code, OSS error code, JSON-RPC error code. */
  code?: string | number;
  /** StoreError kind (conflict / unavailable / corrupt) or the OSS driver's failure kind. */
  kind?: string;
  /** The HTTP status the adapter met. */
  status?: number;
  /** The vendor's id of the failed request (OSS `x-oss-request-id`), to quote to its support. */
  requestId?: string;
  /** The vendor operation that failed (OSS `PutObject`…). */
  operation?: string;
  stack?: string;
  cause?: ErrorFields;
  /** The first few errors of an AggregateError (a connection refused on every address of a host). */
  errors?: ErrorFields[];
}

/** Causes followed; a longer chain ends in a `[truncated]` entry. */
export const MAX_CAUSE_DEPTH = 8;
const MAX_AGGREGATED = 3;
const MAX_MESSAGE_CHARS = 2_000;
const MAX_STACK_CHARS = 8_000;

export function errorFields(error: unknown): ErrorFields {
  return describe(error, 0, new Set());
}

function describe(value: unknown, depth: number, seen: Set<object>): ErrorFields {
  if (typeof value !== 'object' || value === null) {
    // A thrown string or number; String() of anything else (a Secret prints its placeholder).
    return { name: typeof value, message: clip(String(value), MAX_MESSAGE_CHARS) };
  }
  if (seen.has(value)) return { name: '[circular]', message: 'this error already appears above in the chain' };
  seen.add(value);
  const name = text(read(value, 'name')) ?? (value instanceof Error ? 'Error' : 'thrown object');
  const fields: ErrorFields = { name, message: clip(text(read(value, 'message')) ?? '', MAX_MESSAGE_CHARS) };
  const code = codeOf(value);
  if (code !== undefined) fields.code = code;
  const kind = text(read(value, 'kind'));
  if (kind !== undefined) fields.kind = kind;
  const status = integer(read(value, 'status')) ?? integer(read(value, 'httpStatus'));
  if (status !== undefined) fields.status = status;
  const requestId = text(read(value, 'requestId'));
  if (requestId !== undefined) fields.requestId = requestId;
  const operation = text(read(value, 'operation'));
  if (operation !== undefined) fields.operation = operation;
  const stack = text(read(value, 'stack'));
  if (stack !== undefined) fields.stack = clip(stack, MAX_STACK_CHARS);
  const cause = read(value, 'cause');
  if (cause !== undefined) fields.cause = depth + 1 < MAX_CAUSE_DEPTH ? describe(cause, depth + 1, seen) : truncated();
  const errors = read(value, 'errors');
  if (Array.isArray(errors) && errors.length > 0) {
    fields.errors = depth + 1 < MAX_CAUSE_DEPTH ? errors.slice(0, MAX_AGGREGATED).map((inner) => describe(inner, depth + 1, seen)) : [truncated()];
  }
  return fields;
}

/** `code` when it is a string or a number, else a JSON-RPC code kept as `rpcCode` (KernelRpcError). */
function codeOf(value: object): string | number | undefined {
  const code = read(value, 'code');
  if (typeof code === 'string' || (typeof code === 'number' && Number.isFinite(code))) return code;
  return integer(read(value, 'rpcCode'));
}

/** A getter on a foreign error may throw; logging must not. */
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function clip(value: string, limit: number): string {
  return value.length <= limit ? value : `${value.slice(0, limit)}… [${value.length - limit} more characters]`;
}

function truncated(): ErrorFields {
  return { name: '[truncated]', message: `cause chain longer than ${MAX_CAUSE_DEPTH}` };
}

/**
 * The chain on one line for a person at a terminal (the scripts' failure messages): each error as
 * "Name: message [code]", outermost first — "TypeError: fetch failed ← Error: connect ECONNREFUSED…".
 */
export function errorSummary(error: unknown): string {
  const parts: string[] = [];
  for (let fields: ErrorFields | undefined = errorFields(error); fields; fields = fields.cause ?? fields.errors?.[0]) {
    const code = fields.code === undefined || fields.message.includes(String(fields.code)) ? '' : ` [${fields.code}]`;
    parts.push(`${fields.name}: ${fields.message}${code}`);
  }
  return parts.join(' ← ');
}
