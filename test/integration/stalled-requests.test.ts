/**
 * A request whose body stalls or drips must not hold a socket: the whole body arrives within
 * IAC_CODE_AGUI_BODY_TIMEOUT_MS or the request is answered 408 REQUEST_TIMEOUT and the connection
 * is closed; headers that never finish are cut by Node on the same budget, with the same
 * envelope; a client that leaves mid-upload is logged as the caller's business, not as a server
 * error (docs/protocol.md §1.4, §2.3). Real sockets.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponse, type RawExchange, rawRequest } from '../support/raw-http.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
const TOKEN = 'stalled-token';
// Short, so the suite does not wait 30 s; the rule is the same at any value.
const BODY_TIMEOUT_MS = 400;
const CANCEL_PATH = '/extensions/iac-code/v1/executions/execution-1/cancel';

beforeAll(async () => {
  stack = await startStack({ config: { authToken: TOKEN, bodyTimeoutMs: BODY_TIMEOUT_MS } });
});
afterAll(async () => stack.close());

function post(path: string, framing: string, extra: string[] = []): RawExchange {
  const { host } = new URL(stack.url);
  return rawRequest(stack.url, [`POST ${path} HTTP/1.1`, `host: ${host}`, `authorization: Bearer ${TOKEN}`, 'content-type: application/json', framing, ...extra]);
}

async function expectTimedOut(exchange: RawExchange, language = 'en'): Promise<void> {
  const response = await exchange.response;
  expect(response.status).toBe(408);
  expect(response.headers['connection']).toBeUndefined();
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  const { error } = JSON.parse(response.body) as { error: { code: string; message: string } };
  expect(error.code).toBe('REQUEST_TIMEOUT');
  if (language === 'en') expect(error.message).toBe('The request body did not arrive in time.');
  // The socket is let go, not held for the rest of a body that may never come.
  await exchange.closed;
}

describe('a body that does not arrive in time', () => {
  it('headers, part of a Content-Length body, then nothing: 408 and the connection closes', async () => {
    const exchange = post('/', 'content-length: 1000');
    await exchange.write('{"threadId":');
    await expectTimedOut(exchange);
  });

  it('a byte at a time, each well within the deadline: the whole body still must arrive in time', async () => {
    const exchange = post('/', 'content-length: 1000');
    let dripping = true;
    const drip = (async () => {
      while (dripping && (await exchange.write('x'))) await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS / 8));
    })();
    await expectTimedOut(exchange);
    dripping = false;
    await drip;
  });

  it('a chunked body that stops, on the cancel route too, answered in the Accept-Language', async () => {
    const run = post('/', 'transfer-encoding: chunked');
    await run.write('5\r\n{"thr\r\n');
    await expectTimedOut(run);
    const cancel = post(CANCEL_PATH, 'content-length: 100', ['accept-language: de']);
    const response = cancel.response;
    await expectTimedOut(cancel, 'de');
    expect(JSON.parse((await response).body).error.message).toBe('Der Anfragetext ist nicht rechtzeitig angekommen.');
  });

  it('headers that never finish are cut by Node on the same budget, with the JSON envelope and no connection header', async () => {
    const { host, hostname, port } = new URL(stack.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.write(`POST / HTTP/1.1\r\nhost: ${host}\r\ncontent-type: appl`);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    await new Promise((resolve) => socket.once('close', resolve));
    const response = parseResponse(Buffer.concat(received));
    expect(response?.status).toBe(408);
    expect(response?.headers['connection']).toBeUndefined();
    expect(response?.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(response?.body ?? '{}')).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: 'The request body did not arrive in time.' } });
  });
});

describe('a client that leaves mid-upload', () => {
  it('is logged as an incomplete body at info — no error line, no 500', async () => {
    const before = stack.logs.length;
    const exchange = post('/', 'content-length: 100000');
    await exchange.write('{"threadId":"left-mid-upload","messages":[');
    await new Promise((resolve) => setTimeout(resolve, 50));
    exchange.socket.destroy();
    let lines: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 100; i += 1) {
      lines = stack.logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
      if (lines.some((line) => line['message'] === 'request rejected')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines.find((line) => line['message'] === 'request rejected')).toMatchObject({ level: 'info', code: 'INVALID_JSON' });
    expect(lines.filter((line) => line['level'] === 'error')).toEqual([]);
  });
});
