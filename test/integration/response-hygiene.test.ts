/**
 * What every response carries and what none does (docs/protocol.md §1.1, §1.5): an
 * `x-content-type-options: nosniff` header on every answer — JSON, SSE, HEAD, the Node shell's own
 * 500 — and never a `connection` header (Function Compute forbids a function to set one; the
 * shell closes connections on the socket instead). `HEAD /health` is GET without a body, and
 * `Expect: 100-continue` is answered only after the auth, media-type and size checks passed.
 * Real sockets, so the exact response head is seen.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/adapters/logger.js';
import { createNodeHandler, listen } from '../../lib/adapters/node-server/node-server.js';
import { runBody } from '../support/fixtures.js';
import { type RawExchange, type RawResponse, rawRequest } from '../support/raw-http.js';
import { parseSse } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
const TOKEN = 'hygiene-token';

beforeAll(async () => {
  stack = await startStack({ config: { authToken: TOKEN } });
});
afterAll(async () => stack.close());

function request(method: string, path: string, headers: string[] = [], body?: string, url = stack.url): RawExchange {
  const { host } = new URL(url);
  const framing = body === undefined ? [] : [`content-length: ${Buffer.byteLength(body)}`];
  const exchange = rawRequest(url, [`${method} ${path} HTTP/1.1`, `host: ${host}`, ...framing, ...headers]);
  if (body !== undefined) void exchange.write(body);
  return exchange;
}

async function answer(exchange: RawExchange): Promise<RawResponse> {
  try {
    return await exchange.response;
  } finally {
    exchange.socket.destroy();
  }
}

function expectHygiene(response: RawResponse): void {
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['connection']).toBeUndefined();
  expect(response.headers['keep-alive']).toBeUndefined();
}

const auth = `authorization: Bearer ${TOKEN}`;
const json = 'content-type: application/json';

describe('every response', () => {
  it('carries nosniff and no connection header: health, 404, 405, 401, 415, 400, cancel 404 and a streamed run', async () => {
    const cases: Array<[RawExchange, number]> = [
      [request('GET', '/health'), 200],
      [request('GET', '/nope'), 404],
      [request('DELETE', '/health'), 405],
      [request('POST', '/', [json], JSON.stringify(runBody())), 401],
      [request('POST', '/', [auth, 'content-type: text/plain'], 'x'), 415],
      [request('POST', '/', [auth, json], '{"threadId":'), 400],
      [request('POST', '/extensions/iac-code/v1/executions/nope/cancel', [auth, json], JSON.stringify({ threadId: 't', rosInvocationId: 'r' })), 404],
    ];
    for (const [exchange, status] of cases) {
      const response = await answer(exchange);
      expect(response.status).toBe(status);
      expectHygiene(response);
      const parsed = JSON.parse(response.body) as Record<string, unknown>;
      if (status === 200) expect(parsed['status']).toBe('ok');
      else expect(parsed['error']).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    const run = await answer(request('POST', '/', [auth, json, 'accept: text/event-stream'], JSON.stringify(runBody())));
    expect(run.status).toBe(200);
    expect(run.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(run.headers['cache-control']).toBe('no-cache');
    expect(run.headers['x-accel-buffering']).toBe('no');
    expectHygiene(run);
    expect(parseSse(run.body).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('405 on /health allows GET and HEAD; HEAD /health is 200 with the headers of GET and no body', async () => {
    const wrong = await answer(request('POST', '/health', [json], '{}'));
    expect(wrong.headers['allow']).toBe('GET, HEAD');
    const head = await answer(request('HEAD', '/health'));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.body).toBe('');
    expectHygiene(head);
    const inProcess = await stack.app.fetch(new Request(`${stack.url}/health`, { method: 'HEAD' }));
    expect(inProcess.status).toBe(200);
    expect(await inProcess.text()).toBe('');
  });

  it("the Node shell's own 500, when the app itself fails, carries the envelope and nosniff, and no connection header", async () => {
    const logs: string[] = [];
    const handler = createNodeHandler(
      { fetch: () => Promise.reject(new Error('the app broke')) },
      createLogger((line) => logs.push(line)),
    );
    const server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const response = await answer(request('POST', '/', [json], '{"partial":', url));
      expect(response.status).toBe(500);
      expectHygiene(response);
      expect(JSON.parse(response.body)).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred.' } });
      expect(logs.some((line) => line.includes('the app broke'))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a request the app cannot be given — a Host no URL can hold, a method fetch forbids — is answered 400 by the shell, and the instance lives on', async () => {
    const { host } = new URL(stack.url);
    const cases = [
      rawRequest(stack.url, ['GET /health HTTP/1.1', 'host: [']),
      rawRequest(stack.url, ['GET /health HTTP/1.1', 'host: a b']),
      rawRequest(stack.url, ['TRACE /health HTTP/1.1', `host: ${host}`]),
      rawRequest(stack.url, ['TRACK / HTTP/1.1', `host: ${host}`]),
    ];
    const answers = await Promise.all(cases.map(answer));
    // The Host plays no part in routing (docs/protocol.md §1.1): an odd one still reaches /health.
    expect(answers.map((response) => response.status)).toEqual([200, 200, 400, 400]);
    for (const response of answers) expectHygiene(response);
    expect(JSON.parse(answers[2]?.body ?? '')).toEqual({ error: { code: 'INVALID_INPUT', message: 'The request is not valid HTTP.' } });
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
  });

  it('while the instance shuts down: still no connection header, and the connection is closed after the answer', async () => {
    const server = await listen(
      stack.app,
      createLogger(() => undefined),
      '127.0.0.1',
      0,
    );
    try {
      const { host } = new URL(server.url);
      // A request in progress (its body half sent) when the shutdown begins.
      const exchange = rawRequest(server.url, ['POST / HTTP/1.1', `host: ${host}`, auth, json, 'content-length: 12']);
      await exchange.write('{"thread');
      await new Promise((resolve) => setTimeout(resolve, 50));
      server.stopAccepting();
      await exchange.write('Id":');
      const response = await exchange.response;
      expect(response.status).toBe(400);
      expectHygiene(response);
      await exchange.closed;
    } finally {
      await server.close();
    }
  });
});

describe('Expect: 100-continue', () => {
  const expectContinue = 'expect: 100-continue';

  it('is refused without inviting the body when the token, the media type or the declared size is wrong', async () => {
    for (const [headers, status] of [
      [[json, 'content-length: 100'], 401],
      [[auth, 'content-type: text/plain', 'content-length: 100'], 415],
      [[auth, json, `content-length: ${13 * 1024 * 1024}`], 413],
    ] as const) {
      const { host } = new URL(stack.url);
      const exchange = rawRequest(stack.url, ['POST / HTTP/1.1', `host: ${host}`, expectContinue, ...headers]);
      const response = await answer(exchange);
      expect(response.status).toBe(status);
      expect(response.interim).toEqual([]);
      expectHygiene(response);
    }
  });

  it('is answered 100 once the checks passed, and the run then streams', async () => {
    const body = JSON.stringify(runBody());
    const { host } = new URL(stack.url);
    const exchange = rawRequest(stack.url, ['POST / HTTP/1.1', `host: ${host}`, expectContinue, auth, json, `content-length: ${Buffer.byteLength(body)}`]);
    for (let i = 0; i < 200 && !exchange.received().startsWith('HTTP/1.1 100 Continue'); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(exchange.received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    await exchange.write(body);
    const response = await answer(exchange);
    expect(response.interim).toEqual([100]);
    expect(response.status).toBe(200);
    expect(parseSse(response.body).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});
