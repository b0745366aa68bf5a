import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseEventScanner, trimmedSseBody } from '../../lib/adapters/a2a-kernel/sse-history-trim.js';
import { unwrapItem } from '../../lib/core/a2a/inbound.js';
import type { WireStreamItem } from '../../lib/core/a2a/wire-types.js';

/** The trimmed body of a Web stream's bytes, read through the stream's own reader. */
function trimmed(source: ReadableStream<Uint8Array>, onTaskId?: (taskId: string) => void): ReadableStream<Uint8Array> {
  return trimmedSseBody(source.getReader(), onTaskId);
}

async function pipe(chunks: string[], onTaskId?: (taskId: string) => void): Promise<string> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  return new Response(trimmed(source, onTaskId)).text();
}

/** `text` in pieces of `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

describe('trimming echoed user history from large SSE events', () => {
  it('leaves out, and marks, a task’s agent history that alone is over the SDK’s limit (a takeover’s first snapshot of a long answer)', async () => {
    // 6 MB of agent history, one message per delta: what SubscribeToTask opens with after a 24 MiB answer went half out.
    const history = Array.from({ length: 60_000 }, (_, index) => ({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: `delta ${index} `.padEnd(100, '.') }] }));
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history, metadata: { iac_code: { iacCodeSessionId: 's' } } };
    const out = await pipe(pieces(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task } })}\n\n`, 65_536));
    expect(out.length).toBeLessThan(4 * 1024 * 1024);
    const result = (JSON.parse(out.slice('data: '.length)) as { result: WireStreamItem }).result;
    const item = unwrapItem(result);
    expect(item).toMatchObject({ kind: 'task', taskId: 't', history: [], historyOmitted: true, iac: { iacCodeSessionId: 's' } });
    // A task that fits keeps its history, unmarked.
    const small = await pipe([`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task: { ...task, history: history.slice(0, 10) } } })}\n\n`]);
    expect(unwrapItem((JSON.parse(small.slice('data: '.length)) as { result: WireStreamItem }).result)).toMatchObject({ history: expect.arrayContaining([expect.anything()]) });
    expect(unwrapItem((JSON.parse(small.slice('data: '.length)) as { result: WireStreamItem }).result).historyOmitted).toBeUndefined();
  });

  it('passes small events through unchanged, across arbitrary chunk boundaries and CRLF line ends', async () => {
    const text = 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t"}}}\r\n\r\n: ping\r\n\r\n';
    const out = await pipe([text.slice(0, 7), text.slice(7, 40), text.slice(40, 75), text.slice(75)]);
    expect(out).toBe(text);
    // A chunk boundary between the CR and the LF of the blank line's CRLF.
    const cut = text.indexOf('\r\n\r\n') + 3;
    expect(await pipe([text.slice(0, cut), text.slice(cut)])).toBe(text);
  });

  it('hands on LF and CRLF streams byte for byte however the chunks cut them', async () => {
    const line = fc.constantFrom('data: {"a":1}', 'data: {"text":"é → 日本"}', ': heartbeat', 'event: message', 'id: 7', 'data:');
    const event = fc.tuple(fc.array(line, { minLength: 1, maxLength: 3 }), fc.constantFrom('\n', '\r\n'));
    const stream = fc.array(event, { minLength: 1, maxLength: 6 }).map((events) => events.map(([lines, end]) => `${lines.join(end)}${end}${end}`).join(''));
    await fc.assert(
      fc.asyncProperty(stream, fc.array(fc.nat(), { maxLength: 6 }), async (text, cuts) => {
        const bytes = new TextEncoder().encode(text);
        const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((start, index) => bytes.subarray(start, at[index] ?? bytes.length));
        const source = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        });
        expect(await new Response(trimmed(source)).text()).toBe(text);
      }),
    );
  });

  it('re-emits an event with bare CR line ends (which the SDK does not split) with LF line ends, and leaves the others as they are', async () => {
    const bare = 'data: {"a":1}\r\r';
    const crlf = 'data: {"b":2}\r\n\r\n';
    const lf = 'data: {"c":3}\n\n';
    expect(await pipe([bare + crlf + lf])).toBe(`data: {"a":1}\n\n${crlf}${lf}`);
    // The bare CR is known as bare only when the next chunk begins.
    expect(await pipe(['data: {"a":1}\r', '\r', crlf, 'data: {"c":3}\r'])).toBe(`data: {"a":1}\n\n${crlf}data: {"c":3}\n`);
  });

  it('finds the blank line between events wherever the chunks split it, one character at a time included', async () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\n\n: comment\n\ndata: {"c":3}\n\n';
    expect(await pipe(pieces(text, 1))).toBe(text);
    expect(await pipe(pieces(text, 14))).toBe(text);
    expect(await pipe(['data: {"a":1}\n', '\n', 'data: {"b":2}', '\n\n'])).toBe('data: {"a":1}\n\ndata: {"b":2}\n\n');
  });

  it('empties every part of user messages — text, data and raw — in a large task event and keeps everything else', async () => {
    const big = 'A'.repeat(700_000);
    const event = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        task: {
          id: 't',
          history: [
            { role: 'ROLE_USER', parts: [{ text: `look ${big}` }, { data: { bytes: big }, mediaType: 'image/png' }, { raw: big }] },
            { role: 'ROLE_AGENT', parts: [{ text: 'agent text' }, { data: { x: 1 } }] },
          ],
        },
      },
    };
    const out = await pipe([`data: ${JSON.stringify(event)}\r\n\r\n`]);
    expect(out.endsWith('}\n\n')).toBe(true);
    const parsed = JSON.parse(out.trim().slice(6));
    expect(parsed.result.task.history).toEqual([
      { role: 'ROLE_USER', parts: [] },
      { role: 'ROLE_AGENT', parts: [{ text: 'agent text' }, { data: { x: 1 } }] },
    ]);
  });

  it('drops the metadata of user messages in a large event — every resume’s and guidance’s echoed metadata.iac_code — and keeps the agent’s', async () => {
    const fence = { fence: 'f'.repeat(60 * 1024) };
    const userMessage = (n: number) => ({ role: 'ROLE_USER', messageId: `agui-resume-${n}`, parts: [{ text: 'allow' }], metadata: { iac_code: { execution_fence: fence } } });
    const history = [
      ...Array.from({ length: 80 }, (_, n) => userMessage(n)),
      { role: 'ROLE_AGENT', parts: [{ text: 'done' }], metadata: { iac_code: { assistantFinal: { complete: true } } } },
    ];
    const event = { jsonrpc: '2.0', id: 1, result: { task: { id: 't', history, status: { state: 'TASK_STATE_WORKING', message: userMessage(80) } } } };
    const text = `data: ${JSON.stringify(event)}\n\n`;
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    const out = await pipe(pieces(text, 64 * 1024));
    expect(out.length).toBeLessThan(64 * 1024);
    const task = JSON.parse(out.trim().slice(6)).result.task;
    expect(task.history[0]).toEqual({ role: 'ROLE_USER', messageId: 'agui-resume-0', parts: [] });
    expect(task.history.at(-1)).toEqual(history.at(-1));
    expect(task.status.message).toEqual({ role: 'ROLE_USER', messageId: 'agui-resume-80', parts: [] });
  });

  it('brings an 11 MiB echo of the user text under the SDK limit, arriving in 64 KiB chunks', async () => {
    const event = {
      jsonrpc: '2.0',
      id: 1,
      result: { task: { id: 't', status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ role: 'ROLE_USER', parts: [{ text: 'y'.repeat(11 * 1024 * 1024) }] }] } },
    };
    const small = 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t"}}}\n\n';
    const out = await pipe(pieces(`data: ${JSON.stringify(event)}\n\n${small}`, 64 * 1024));
    expect(out.length).toBeLessThan(4 * 1024 * 1024);
    const [first, second] = out.split('\n\n');
    expect(JSON.parse((first as string).slice(6)).result.task).toEqual({ id: 't', status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ role: 'ROLE_USER', parts: [] }] });
    expect(`${second}\n\n`).toBe(small);
  });
});

describe('reporting the task a stream names, before the SDK parses it', () => {
  it('reports a task event’s id once, and a status update’s taskId', async () => {
    const seen: string[] = [];
    await pipe(['data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"task-\\"1\\"","contextId":"c"}}}\n\n', 'data: {"result":{"statusUpdate":{"taskId":"other"}}}\n\n'], (id) =>
      seen.push(id),
    );
    expect(seen).toEqual(['task-"1"']);
    const fromUpdate: string[] = [];
    await pipe(['data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-2","contextId":"c"}}}\n\n'], (id) => fromUpdate.push(id));
    expect(fromUpdate).toEqual(['task-2']);
  });

  it('reports it from the first half of an event that never completes (the connection broke mid-event)', async () => {
    const seen: string[] = [];
    const half = 'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"task-cut","contextId":"c","history":[{"role":"ROLE_USER","parts":[{"text":"yyyy';
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(half));
        setTimeout(() => controller.error(new Error('terminated')), 20);
      },
    });
    await expect(new Response(trimmed(source, (id) => seen.push(id))).text()).rejects.toThrow('terminated');
    expect(seen).toEqual(['task-cut']);
  });

  it('splits a large event arriving in many chunks, with the blank line split across two of them', async () => {
    const big = 'B'.repeat(3_000_000);
    const large = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task: { id: 't', history: [{ role: 'ROLE_USER', parts: [{ text: 'x' }, { data: { bytes: big } }] }] } } })}`;
    const small = 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t"}}}';
    const text = `${large}\n\n${small}\n\n`;
    // 64 KiB chunks, and one boundary placed between the two newlines that end the large event.
    const cut = large.length + 1;
    const chunks: string[] = [];
    for (let start = 0; start < cut; start += 65_536) chunks.push(text.slice(start, Math.min(start + 65_536, cut)));
    chunks.push(text.slice(cut));
    const events = (await pipe(chunks)).split('\n\n');
    expect(events).toHaveLength(3);
    // The echoed user message is emptied, whatever its size (docs/architecture.md §4.1).
    expect(JSON.parse((events[0] as string).slice(6)).result.task.history[0].parts).toEqual([]);
    expect(events[1]).toBe(small);
    expect(events[2]).toBe('');
  });
});

/** The bytes of `chunks`, cut anywhere — inside a multi-byte character too. */
function byteSource(bytes: Uint8Array, cut: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += cut) controller.enqueue(bytes.slice(i, i + cut));
      controller.close();
    },
  });
}

async function allText(stream: ReadableStream<string>): Promise<string> {
  let text = '';
  for await (const part of stream) text += part;
  return text;
}

describe('the trimmed body read as the SDK reads it, through pipeThrough(new TextDecoderStream())', () => {
  it('gives the same text as decoding its bytes, however the bytes are cut, multi-byte characters and a large event included', async () => {
    const large = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task: { id: 't-9', history: [{ role: 'ROLE_USER', parts: [{ text: 'ü'.repeat(600_000) }] }] } } });
    const small = new TextEncoder().encode('data: {"a":"héllo 世界 🚀"}\r\n\r\n: comment\n\ndata: {"b":"ß"}\r\r');
    const withLarge = new TextEncoder().encode(`data: {"a":"é"}\n\ndata: ${large}\n\ndata: {"b":"ß"}\n\n`);
    for (const [bytes, cuts] of [
      [small, [1, 3, 7]],
      [withLarge, [4093, 65_536]],
    ] as const) {
      for (const cut of cuts) {
        const asBytes = await new Response(trimmed(byteSource(bytes, cut))).text();
        const decoded = await allText(trimmed(byteSource(bytes, cut)).pipeThrough(new TextDecoderStream()));
        expect(decoded).toBe(asBytes);
      }
    }
    expect(await allText(trimmed(byteSource(withLarge, 65_536)).pipeThrough(new TextDecoderStream()))).toContain('"parts":[]');
  });

  it('reports the task id on that path too, and any other transform is piped as usual', async () => {
    const seen: string[] = [];
    const bytes = new TextEncoder().encode('data: {"result":{"task":{"id":"t-1"}}}\n\n');
    await allText(trimmed(byteSource(bytes, 4), (taskId) => seen.push(taskId)).pipeThrough(new TextDecoderStream()));
    expect(seen).toEqual(['t-1']);
    const upper = new TransformStream<Uint8Array, string>({ transform: (chunk, controller) => controller.enqueue(new TextDecoder().decode(chunk).toUpperCase()) });
    expect(await allText(trimmed(byteSource(bytes, 4)).pipeThrough(upper))).toBe('DATA: {"RESULT":{"TASK":{"ID":"T-1"}}}\n\n');
  });

  it('cancelling the decoded stream cancels the kernel body', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: {}\n\n'));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const reader = trimmed(source).pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('data: {}\n\n');
    await reader.cancel('gone');
    expect(cancelled).toBe('gone');
  });

  it('hands on the last whole event of a read as a piece of its own, so what a quiet stream keeps is that event alone', async () => {
    const scanner = new SseEventScanner();
    const text = (pieces: Uint8Array[]) => pieces.map((piece) => new TextDecoder().decode(piece));
    const bytes = (value: string) => new TextEncoder().encode(value);
    expect(text(scanner.push(bytes('data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4')))).toEqual(['data: 1\n\ndata: 2\n\n', 'data: 3\n\n']);
    expect(text(scanner.push(bytes('\n\ndata: 5\r\n\r\n')))).toEqual(['data: 4', '\n\n', 'data: 5\r\n\r\n']);
    const reader = trimmed(byteSource(bytes('data: a\n\ndata: b\n\n'), 64))
      .pipeThrough(new TextDecoderStream())
      .getReader();
    expect((await reader.read()).value).toBe('data: a\n\n');
    expect((await reader.read()).value).toBe('data: b\n\n');
  });
});
