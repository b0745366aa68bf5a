/**
 * The kernel's streaming calls over node:http (lib/adapters/a2a-kernel/kernel-event-stream.ts),
 * against a real HTTP server and through the SDK as the adapter drives it (SdkA2AKernel): the
 * request the kernel receives, an event stream read as it arrives, a refusal read whole, a
 * connection broken mid-stream reported as a failure (never as a quiet end), and the caller's
 * abort before and during the answer (docs/protocol.md §7.1).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { type AgentCard, SendMessageRequest } from '@a2a-js/sdk';
import { Client, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchEventStream } from '../../lib/adapters/a2a-kernel/kernel-event-stream.js';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import type { WireSendParams } from '../../lib/core/a2a/wire-types.js';
import { KernelRpcError, KernelUnavailableError } from '../../lib/core/ports.js';
import { secretFrom } from '../../lib/core/secret.js';

type Serve = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const statusEvent = (id: unknown, taskId: string, text: string): string =>
  `data: ${JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {
      statusUpdate: {
        taskId,
        contextId: 'ctx-1',
        status: { state: 'TASK_STATE_WORKING', message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] } },
      },
    },
  })}\n\n`;

const params = (): WireSendParams => ({ message: { messageId: 'msg-1', contextId: 'ctx-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }) as unknown as WireSendParams;

/** What a streaming call that yields no event fails with. */
function failureOfStream(url: string): Promise<unknown> {
  const kernel = new SdkA2AKernel({ url, token: undefined });
  return (async () => {
    for await (const _ of kernel.sendStreamingMessage(params())) {
      // no event expected
    }
  })().catch((caught: unknown) => caught);
}

describe('the kernel event stream over node:http', () => {
  let server: Server;
  let serve: Serve = () => undefined;
  let url: string;
  const received: Array<{ method: string | undefined; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push({ method: req.method, headers: req.headers, body });
        serve(req, body, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('carries the SDK’s request (method, body, bearer token, A2A-Version) and yields each event as it arrives', async () => {
    let more: ((text: string) => void) | undefined;
    serve = (_req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(statusEvent(id, 'task-1', 'first'));
      more = (text) => (text === 'end' ? res.end() : res.write(statusEvent(id, 'task-1', text)));
    };
    const kernel = new SdkA2AKernel({ url, token: secretFrom('kernel-token') });
    const seenTaskIds: string[] = [];
    const signal = new AbortController().signal;
    const stream = kernel.sendStreamingMessage(params(), { signal, onTaskId: (taskId) => seenTaskIds.push(taskId) })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value?.statusUpdate?.status?.message?.parts?.[0]).toEqual({ text: 'first' });
    // The second event is written only now: the first was read before the answer ended.
    more?.('second');
    const second = await stream.next();
    expect(second.value?.statusUpdate?.status?.message?.parts?.[0]).toEqual({ text: 'second' });
    more?.('end');
    expect((await stream.next()).done).toBe(true);
    expect(seenTaskIds).toEqual(['task-1']);
    const request = received.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.headers['authorization']).toBe('Bearer kernel-token');
    expect(request?.headers['a2a-version']).toBe('1.0');
    expect(request?.headers['host']).toBe(new URL(url).host);
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(request?.body ?? '')));
    expect(request?.headers['accept']).toBe('text/event-stream');
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ jsonrpc: '2.0', method: 'SendStreamingMessage' });
  });

  it('sends a streaming call exactly as the SDK’s Client sends it (the adapter drives the Client’s transport itself)', async () => {
    serve = (_req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(statusEvent(id, 'task-w', 'hello'));
    };
    const card = {
      name: 'kernel',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      capabilities: { streaming: true },
    } as unknown as AgentCard;
    const client = new Client(await new JsonRpcTransportFactory().create(url, card), card, {});
    const kernel = new SdkA2AKernel({ url, token: undefined });
    const withConfiguration = { ...params(), configuration: { historyLength: 3, acceptedOutputModes: ['text/plain'] } } as unknown as WireSendParams;
    for (const sent of [params(), withConfiguration]) {
      for await (const _ of client.sendMessageStream(SendMessageRequest.fromJSON(sent))) {
        // read to the end
      }
      const byClient = JSON.parse(received.at(-1)?.body ?? '{}') as Record<string, unknown>;
      for await (const _ of kernel.sendStreamingMessage(sent)) {
        // read to the end
      }
      const byAdapter = JSON.parse(received.at(-1)?.body ?? '{}') as Record<string, unknown>;
      expect({ ...byAdapter, id: 0 }).toEqual({ ...byClient, id: 0 });
      expect(byAdapter['method']).toBe('SendStreamingMessage');
    }
  });

  it('reports each stream’s own task to its own onTaskId when two streams share one signal', async () => {
    serve = (_req, body, res) => {
      const { id, params: sent } = JSON.parse(body) as { id: number; params: { message: { messageId: string } } };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(statusEvent(id, `task-of-${sent.message.messageId}`, 'hello'));
    };
    const kernel = new SdkA2AKernel({ url, token: undefined });
    const signal = new AbortController().signal;
    const seen: Record<string, string[]> = { a: [], b: [] };
    const read = async (name: 'a' | 'b'): Promise<void> => {
      const sent = { message: { messageId: name, contextId: 'ctx-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } as unknown as WireSendParams;
      for await (const _ of kernel.sendStreamingMessage(sent, { signal, onTaskId: (taskId) => seen[name]?.push(taskId) })) {
        // read to the end
      }
    };
    await Promise.all([read('a'), read('b')]);
    expect(seen).toEqual({ a: ['task-of-a'], b: ['task-of-b'] });
  });

  it('reads a JSON-RPC refusal whole and reports it as the kernel’s error', async () => {
    serve = (_req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Task not found' } }));
    };
    const kernel = new SdkA2AKernel({ url, token: undefined });
    const error = await (async () => {
      for await (const _ of kernel.subscribeToTask('task-x')) {
        // no event expected
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KernelRpcError);
    expect((error as KernelRpcError).rpcCode).toBe(-32001);
  });

  it('reports an HTTP failure with its status', async () => {
    serve = (_req, _body, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway');
    };
    const error = await failureOfStream(url);
    expect(error).toBeInstanceOf(KernelUnavailableError);
    expect((error as KernelUnavailableError).status).toBe(502);
  });

  it('reports an answer whose status no Response can carry as a failed call, instead of never settling', async () => {
    serve = (_req, _body, res) => {
      res.writeHead(999, 'Odd', { 'content-type': 'text/event-stream' });
      res.end('data: {}\n\n');
    };
    const error = await failureOfStream(url);
    expect(error).toBeInstanceOf(KernelUnavailableError);
    expect((error as Error).message).toContain('HTTP 999');
  });

  it('reads an event stream whose status text holds a control character, as fetch does, instead of throwing inside the response listener', async () => {
    // Node's own server refuses to write such a status line; a raw socket writes what a faulty kernel or proxy may.
    const raw = createNetServer((socket) => {
      let request = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        request += chunk;
        const [head, body = ''] = request.split('\r\n\r\n');
        if (Number(/content-length: (\d+)/i.exec(head as string)?.[1]) !== Buffer.byteLength(body)) return;
        const event = statusEvent((JSON.parse(body) as { id: number }).id, 'task-odd', 'odd');
        socket.end(`HTTP/1.1 200 O\x01K\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(event)}\r\n\r\n${event}`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const kernel = new SdkA2AKernel({ url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`, token: undefined });
      const texts: unknown[] = [];
      for await (const item of kernel.sendStreamingMessage(params())) texts.push(item.statusUpdate?.status?.message?.parts?.[0]);
      expect(texts).toEqual([{ text: 'odd' }]);
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it('fails the read when the connection breaks in the middle of the stream, after the events before it', async () => {
    serve = (req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(statusEvent(id, 'task-2', 'before'));
      res.write('data: {"jsonrpc":"2.0","id":');
      setTimeout(() => req.socket.destroy(), 20);
    };
    const kernel = new SdkA2AKernel({ url, token: undefined });
    const texts: unknown[] = [];
    const error = await (async () => {
      for await (const item of kernel.sendStreamingMessage(params())) texts.push(item.statusUpdate?.status?.message?.parts?.[0]);
    })().catch((caught: unknown) => caught);
    expect(texts).toEqual([{ text: 'before' }]);
    expect(error).toBeInstanceOf(KernelUnavailableError);
  });

  it('rejects with the signal’s reason when aborted before the answer, and closes the connection', async () => {
    let closed: Promise<void> = Promise.resolve();
    serve = (req) => {
      // Never answers: only the abort can end the call.
      closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
    };
    const controller = new AbortController();
    const reason = new Error('caller left');
    const call = fetchEventStream(new URL(url), { method: 'POST', headers: new Headers({ accept: 'text/event-stream' }), body: '{}', signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await closed;
    // An already aborted signal sends nothing.
    const before = received.length;
    await expect(fetchEventStream(new URL(url), { method: 'POST', headers: new Headers(), body: '{}', signal: controller.signal })).rejects.toBe(reason);
    expect(received.length).toBe(before);
  });

  it('errors the body’s read when aborted during the stream, and the kernel sees the connection close', async () => {
    let closed: Promise<void> = Promise.resolve();
    serve = (req, _body, res) => {
      closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n');
    };
    const controller = new AbortController();
    const response = await fetchEventStream(new URL(url), { method: 'POST', headers: new Headers(), body: '{}', signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {}\n\n');
    const pending = reader.read();
    controller.abort(new Error('caller left'));
    await expect(pending).rejects.toThrow();
    await closed;
  });
});
