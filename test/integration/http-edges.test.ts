/**
 * HTTP edge cases a hostile probe found answered by Node itself, without the adapter's envelope
 * (docs/protocol.md §1.5: every response is the JSON envelope with `nosniff`): CONNECT, an HTTP/1.1
 * request without Host, an `Expect` other than `100-continue`; and an absolute-form request target,
 * which RFC 9112 §3.2.2 requires a server to accept. Real sockets, so the exact answer is seen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody } from '../support/fixtures.js';
import { type RawExchange, type RawResponse, rawRequest } from '../support/raw-http.js';
import { parseSse } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.close());

async function answer(exchange: RawExchange): Promise<RawResponse> {
  try {
    return await exchange.response;
  } finally {
    exchange.socket.destroy();
  }
}

function expectEnvelope(response: RawResponse, status: number, code: string, message: RegExp): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['connection']).toBeUndefined();
  const body = JSON.parse(response.body) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(message);
}

describe('requests Node would answer on its own', () => {
  it('CONNECT is refused with the envelope (not a silent close): this server is no proxy', async () => {
    const { host } = new URL(stack.url);
    const exchange = rawRequest(stack.url, ['CONNECT example.com:443 HTTP/1.1', `host: ${host}`]);
    expectEnvelope(await answer(exchange), 400, 'INVALID_INPUT', /CONNECT/);
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
  });

  it('an HTTP/1.1 request without Host is 400 with the envelope; HTTP/1.0 needs none', async () => {
    expectEnvelope(await answer(rawRequest(stack.url, ['GET /health HTTP/1.1'])), 400, 'INVALID_INPUT', /Host/);
    // HTTP/1.0 has no Host requirement; its answer ends with the connection.
    const old = rawRequest(stack.url, ['GET /health HTTP/1.0']);
    expect((await old.response).status).toBe(200);
    await old.closed;
    expect(old.received()).toContain('"status":"ok"');
  });

  it('an Expect other than 100-continue is 417 with the envelope, the body never invited', async () => {
    const { host } = new URL(stack.url);
    const body = JSON.stringify(runBody());
    const exchange = rawRequest(stack.url, ['POST / HTTP/1.1', `host: ${host}`, 'expect: something', 'content-type: application/json', `content-length: ${body.length}`]);
    const response = await answer(exchange);
    expectEnvelope(response, 417, 'INVALID_INPUT', /100-continue/);
    expect(response.interim).toEqual([]);
  });
});

describe('an absolute-form request target', () => {
  it('routes by its path: POST http://host/ runs, GET http://host/health answers', async () => {
    const { host } = new URL(stack.url);
    const body = JSON.stringify(runBody());
    const run = rawRequest(stack.url, [`POST http://${host}/ HTTP/1.1`, `host: ${host}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`]);
    await run.write(body);
    const streamed = await answer(run);
    expect(streamed.status).toBe(200);
    expect(parseSse(streamed.body).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    const health = await answer(rawRequest(stack.url, [`GET http://${host}/health?probe=1 HTTP/1.1`, `host: ${host}`]));
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
  });
});
