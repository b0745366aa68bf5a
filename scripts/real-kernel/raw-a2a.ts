/**
 * A raw A2A 1.0 JSON-RPC client for recording what a kernel sends (docs/architecture.md §9.7):
 * every answer is kept as the JSON text it arrived as — one text per SSE record, or the whole
 * body of a plain JSON answer — so what parsing would lose (`8.0` against `8`) stays visible.
 * Nothing here interprets an item beyond the few fields a flow needs to take its next step.
 */

export interface RawStream {
  /** What the flow calls this step (`turn`, `answer`, `follow`…). */
  label: string;
  method: string;
  /** The JSON text of each item, in order. */
  items: string[];
}

export interface RawCall {
  /** Resolves when the answer ended (or the caller stopped reading). */
  done: Promise<RawStream>;
  /** Stops reading: the client leaves, as the adapter leaves a stream it has read enough of. */
  leave(): void;
}

let requestId = 0;

/** Splits an SSE body into the data of its records; the real kernel ends lines with \r\n. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const record = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = record
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) yield data;
    }
  }
}

/**
 * Calls `method` and records its answer. `onItem` sees each item as it arrives (parsed) and may
 * return `'leave'` to stop reading after it.
 */
export function rawCall(url: string, label: string, method: string, params: unknown, onItem?: (item: Record<string, unknown>) => 'leave' | undefined): RawCall {
  const abort = new AbortController();
  const items: string[] = [];
  const done = (async (): Promise<RawStream> => {
    requestId += 1;
    const response = await fetch(url, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream, application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: requestId, method, params }),
    });
    if (!response.body) throw new Error(`${method}: no body (HTTP ${response.status})`);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      items.push((await response.text()).trim());
      return { label, method, items };
    }
    try {
      for await (const data of sseData(response.body)) {
        items.push(data);
        if (onItem?.(JSON.parse(data) as Record<string, unknown>) === 'leave') break;
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      abort.abort();
    }
    return { label, method, items };
  })();
  return { done, leave: () => abort.abort() };
}

/** The object under `result` of one item: `task`, `statusUpdate`, … or the result itself. */
export function inner(item: Record<string, unknown>): { kind: string; value: Record<string, unknown> } | undefined {
  const result = item['result'] as Record<string, unknown> | undefined;
  if (!result) return undefined;
  for (const kind of ['task', 'statusUpdate', 'artifactUpdate', 'message']) {
    const value = result[kind];
    if (value && typeof value === 'object') return { kind, value: value as Record<string, unknown> };
  }
  return { kind: 'result', value: result };
}

/** `metadata.iac_code` of an item's inner object. */
export function iacOf(item: Record<string, unknown>): Record<string, unknown> {
  const metadata = inner(item)?.value['metadata'] as { iac_code?: Record<string, unknown> } | undefined;
  return metadata?.iac_code ?? {};
}

/** The state of an item's status, as sent (`TASK_STATE_WORKING`). */
export function stateOf(item: Record<string, unknown>): string | undefined {
  const status = inner(item)?.value['status'] as { state?: string } | undefined;
  return status?.state;
}
