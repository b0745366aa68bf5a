/**
 * Every way a call to the adapter can fail, in words a person can act on (docs/protocol.md §2):
 * a 401 (wrong or missing token), an adapter that cannot be reached, an HTTP error answered before
 * the stream (`{error: {code, message, details}}`, already translated by the adapter), or a
 * RUN_ERROR in the stream.
 */
export interface Failure {
  kind: 'unauthorized' | 'unreachable' | 'http' | 'run';
  code: string;
  message: string;
  /** INVALID_INPUT names each failing field. */
  details: Array<{ path: string; message: string }>;
  /** THREAD_BUSY names the run holding the thread (docs/protocol.md §2.2): the page offers to open or stop it. */
  holder?: ThreadHolder;
}

/** The run that holds a busy thread, as THREAD_BUSY's details say. */
export interface ThreadHolder {
  executionId: string;
  runId: string;
  state: 'live' | 'detached';
  /** Epoch milliseconds until which a detached run is kept for a reader to come back. */
  detachedUntil?: number;
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function detailsOf(value: unknown): Failure['details'] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is { path: unknown; message: unknown } => typeof item === 'object' && item !== null)
    .map((item) => ({ path: String(item.path ?? ''), message: String(item.message ?? '') }));
}

function holderOf(value: unknown): ThreadHolder | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { executionId, runId, state, detachedUntil } = value as Record<string, unknown>;
  if (typeof executionId !== 'string' || typeof runId !== 'string' || (state !== 'live' && state !== 'detached')) return undefined;
  return { executionId, runId, state, ...(typeof detachedUntil === 'number' ? { detachedUntil } : {}) };
}

/** An HTTP answer's status and body (as @ag-ui/client's HttpAgent reports it, or read directly). */
export function httpFailure(status: number, body: unknown): Failure {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as ErrorEnvelope;
  const code = typeof envelope.error?.code === 'string' ? envelope.error.code : `HTTP_${status}`;
  const message = typeof envelope.error?.message === 'string' ? envelope.error.message : typeof body === 'string' && body ? body : `The adapter answered HTTP ${status}.`;
  const holder = code === 'THREAD_BUSY' ? holderOf(envelope.error?.details) : undefined;
  return { kind: status === 401 ? 'unauthorized' : 'http', code, message, details: detailsOf(envelope.error?.details), ...(holder ? { holder } : {}) };
}

export function unreachable(): Failure {
  // Read through globalThis so that this file has no DOM dependency (unit tests run it in Node).
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin ?? 'this address';
  return {
    kind: 'unreachable',
    code: 'UNREACHABLE',
    message: `The adapter at ${origin} cannot be reached. Check that it is running, then try again.`,
    details: [],
  };
}

/** Whatever a run or a fetch threw. HttpAgent attaches `status` and the parsed `payload` to HTTP errors. */
export function failureOf(error: unknown): Failure {
  const withStatus = error as { status?: unknown; payload?: unknown } | undefined;
  if (typeof withStatus?.status === 'number') return httpFailure(withStatus.status, withStatus.payload);
  if (error instanceof Error && error.name === 'ConnectionBroken')
    return { kind: 'unreachable', code: 'CONNECTION_LOST', message: 'The connection to the adapter broke mid-stream.', details: [] };
  // fetch rejects with a TypeError when nothing answers (connection refused, DNS, offline).
  if (error instanceof TypeError) return unreachable();
  return { kind: 'unreachable', code: 'CONNECTION_FAILED', message: `The connection to the adapter failed: ${String((error as Error)?.message ?? error)}`, details: [] };
}

export function runErrorFailure(code: string, message: string): Failure {
  return { kind: 'run', code, message, details: [] };
}
