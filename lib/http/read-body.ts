/**
 * Reading a request body within the limits of docs/protocol.md §1.4: a size limit (a declared
 * Content-Length over it is refused before a byte is read; a body that grows over it is refused
 * as soon as the bytes read cross it) and a deadline for the whole body to arrive. A body that
 * breaks off (the client left mid-upload) is the caller's business, answered as an incomplete
 * body — never a server fault; a body still arriving when the instance stops is refused with 503
 * SERVER_BUSY so that the caller retries elsewhere (shutdown.ts).
 */
import { AdapterError } from '../core/errors.js';
import type { MessageKey } from '../core/i18n/catalogue.js';
import { joinBytes } from '../core/join-bytes.js';
import { InstanceShuttingDown } from './shutdown.js';

/** IAC_CODE_AGUI_BODY_TIMEOUT_MS's default (docs/protocol.md §9). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export interface BodyLimits {
  /** Bytes. */
  limit: number;
  /** The message of the 413 (the run and cancel routes say it differently). */
  tooLarge: MessageKey;
  /** Milliseconds from the start of the read for the whole body to arrive, else 408. */
  timeoutMs: number;
}

/** Why a body read stopped early: the request's signal aborted (the client left, or the instance is stopping). */
function abortedRead(signal: AbortSignal): AdapterError {
  return signal.reason instanceof InstanceShuttingDown
    ? new AdapterError('SERVER_BUSY', 'shuttingDown', undefined, { cause: signal.reason })
    : new AdapterError('INVALID_JSON', 'bodyIncomplete', undefined, { cause: signal.reason });
}

export async function readBody(request: Request, limits: BodyLimits): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limits.limit) throw new AdapterError('REQUEST_TOO_LARGE', limits.tooLarge);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    const reader = request.body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<'timeout' | 'aborted'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), limits.timeoutMs);
      onAbort = () => resolve('aborted');
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      for (;;) {
        const next = await Promise.race([reader.read(), stopped]).catch((error: unknown) => {
          throw request.signal.aborted ? abortedRead(request.signal) : new AdapterError('INVALID_JSON', 'bodyIncomplete', undefined, { cause: error });
        });
        if (next === 'timeout' || next === 'aborted') {
          await reader.cancel().catch(() => undefined);
          throw next === 'timeout' ? new AdapterError('REQUEST_TIMEOUT', 'requestTimeout') : abortedRead(request.signal);
        }
        if (next.done) break;
        total += next.value.byteLength;
        if (total > limits.limit) {
          await reader.cancel().catch(() => undefined);
          throw new AdapterError('REQUEST_TOO_LARGE', limits.tooLarge);
        }
        chunks.push(next.value);
      }
    } finally {
      clearTimeout(timer);
      if (onAbort) request.signal.removeEventListener('abort', onAbort);
    }
  }
  return joinBytes(chunks);
}
