/**
 * A body over the limit is refused with 413 while the client is still sending it, and every client
 * must read that answer: the adapter answers, then reads and drops the rest of the body (within a
 * bound) instead of closing under the client's feet — closing a socket with unread bytes resets
 * the connection, and the reset discards the answer a busy client has not read yet
 * (docs/protocol.md §1.4, §1.5). Real sockets; the clients read only once they stopped sending,
 * which is when an early reset loses the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawExchange, rawRequest } from '../support/raw-http.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
const TOKEN = 'oversized-token';
const TRIES = 50;
const MiB = 1024 * 1024;
const PIECE = Buffer.alloc(256 * 1024, 'x');
const CANCEL_PATH = '/extensions/iac-code/v1/executions/execution-1/cancel';

beforeAll(async () => {
  stack = await startStack({ config: { authToken: TOKEN } });
});
afterAll(async () => stack.close());

interface Upload {
  path: string;
  chunked: boolean;
  /** Content-Length announced (ignored when chunked). */
  declared?: number;
  /** Bytes the client sends before it reads. */
  send: number;
}

function open(upload: Upload): RawExchange {
  const { host } = new URL(stack.url);
  return rawRequest(
    stack.url,
    [
      `POST ${upload.path} HTTP/1.1`,
      `host: ${host}`,
      `authorization: Bearer ${TOKEN}`,
      'content-type: application/json',
      upload.chunked ? 'transfer-encoding: chunked' : `content-length: ${upload.declared ?? upload.send}`,
    ],
    { readAfterSending: true },
  );
}

/** Sends the body (stopping early if the socket is gone), then reads the answer. */
async function upload(exchange: RawExchange, options: Upload): Promise<{ status: number; code: unknown; connection: string | undefined; nosniff: string | undefined }> {
  let sent = 0;
  while (sent < options.send) {
    const frame = options.chunked ? Buffer.concat([Buffer.from(`${PIECE.length.toString(16)}\r\n`), PIECE, Buffer.from('\r\n')]) : PIECE;
    if (!(await exchange.write(frame))) break;
    sent += PIECE.length;
  }
  if (options.chunked) await exchange.write('0\r\n\r\n');
  exchange.socket.resume();
  const response = await exchange.response;
  const body = JSON.parse(response.body) as { error?: { code?: unknown } };
  return { status: response.status, code: body.error?.code, connection: response.headers['connection'], nosniff: response.headers['x-content-type-options'] };
}

async function manyTries(options: Upload): Promise<void> {
  const outcomes = [];
  for (let round = 0; round < TRIES / 5; round += 1) {
    outcomes.push(
      ...(await Promise.allSettled(
        Array.from({ length: 5 }, async () => {
          const exchange = open(options);
          try {
            return await upload(exchange, options);
          } finally {
            exchange.socket.destroy();
          }
        }),
      )),
    );
  }
  const lost = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String(outcome.reason));
  expect(lost).toEqual([]);
  for (const outcome of outcomes) {
    expect(outcome.status === 'fulfilled' && outcome.value).toEqual({ status: 413, code: 'REQUEST_TOO_LARGE', connection: undefined, nosniff: 'nosniff' });
  }
}

describe('a body over the limit, refused while the client is still sending', () => {
  it(`POST / with a Content-Length over 12 MiB: all ${TRIES} clients read their 413 after sending 2 MiB more`, async () => {
    await manyTries({ path: '/', chunked: false, declared: 13 * MiB, send: 2 * MiB });
  }, 60_000);

  it(`the cancel route with a chunked body over 64 KiB: all ${TRIES} clients read their 413 after sending 1 MiB`, async () => {
    await manyTries({ path: CANCEL_PATH, chunked: true, send: MiB });
  }, 60_000);

  for (const chunked of [false, true]) {
    it(`POST / with a whole 13 MiB ${chunked ? 'chunked' : 'Content-Length'} body: the 413 is read and the drained connection serves the next request`, async () => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const options = { path: '/', chunked, send: 13 * MiB };
        const exchange = open(options);
        try {
          expect(await upload(exchange, options)).toMatchObject({ status: 413, code: 'REQUEST_TOO_LARGE', connection: undefined });
          const { host } = new URL(stack.url);
          // The same socket again: the rest of the refused body was read off it, so it is still usable.
          const again = new Promise<string>((resolve) => {
            let text = '';
            exchange.socket.on('data', (chunk: Buffer) => {
              text += chunk.toString('latin1');
              if (text.includes('"status":"ok"')) resolve(text);
            });
          });
          exchange.socket.write(`GET /health HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
          expect(await again).toMatch(/^HTTP\/1\.1 200 /m);
        } finally {
          exchange.socket.destroy();
        }
      }
    }, 60_000);
  }

  it('a client that never stops sending reads its 413, then the adapter closes the connection after a bounded drain', async () => {
    const options = { path: '/', chunked: true, send: Number.POSITIVE_INFINITY };
    const exchange = open(options);
    exchange.socket.resume();
    const sending = (async () => {
      for (;;) {
        if (!(await exchange.write(Buffer.concat([Buffer.from(`${PIECE.length.toString(16)}\r\n`), PIECE, Buffer.from('\r\n')])))) return;
      }
    })();
    const response = await exchange.response;
    expect(response.status).toBe(413);
    expect(response.headers['connection']).toBeUndefined();
    await exchange.closed;
    await sending;
  }, 30_000);
});
