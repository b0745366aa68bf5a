/**
 * A few fuzz cases over a real loopback socket (lib/adapters/node-server): fuzzed bodies through
 * fetch, and raw bytes written straight to the TCP socket — malformed request lines, bad header
 * framing, lying Content-Length, invalid UTF-8 — after which the server still answers /health.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAnswer } from './support/answers.js';
import { runInput } from './support/bodies.js';
import { describeRequest, useFuzzStack } from './support/fuzz-stack.js';
import { jsonText } from './support/json-text.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';

const fuzz = useFuzzStack();

/** Writes `bytes`, half-closes, and collects what comes back until the server closes or 3 s pass. */
function exchange(port: number, bytes: Uint8Array): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(received).toString('latin1'));
    };
    const timer = setTimeout(done, 3_000);
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => socket.end(bytes));
  });
}

const encoder = new TextEncoder();
const body = '{"threadId":"t","runId":"r"}';
const rawRequest = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 200 }),
  fc
    .constantFrom(
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999\r\n\r\n${body}`,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n${body}`,
      `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
      'POST / HTTP/1.1\r\nHost: x\r\nX: a\nb\r\n\r\n',
      'GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /%ZZ HTTP/1.1\r\nHost: x\r\n\r\n',
      `POST /extensions/iac-code/v1/executions/%ED%A0%80/cancel HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      'GARBAGE\r\n\r\n',
      'POST / HTTP/9.9\r\n\r\n',
    )
    .map((text) => encoder.encode(text)),
  // Request lines and Host headers the Web Request the app takes cannot hold (docs/protocol.md §1.5).
  fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'OPTIONS', 'TRACE', 'TRACK', 'PATCH', 'PROPFIND', 'M-SEARCH'),
      fc.constantFrom('/', '/health', '*', '//x/health', 'http://[/', 'http://x/health'),
      fc.constantFrom('x', '[', 'a b', '%zz', '::1]', 'x:99999', ''),
    )
    .map(([method, target, host]) => encoder.encode(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`)),
  fc.tuple(fc.constantFrom(0x80, 0xff, 0xc0, 0xed), fc.nat({ max: 40 })).map(([bad, at]) => {
    const text = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1}\r\n\r\n${body}`;
    const bytes = encoder.encode(text);
    const index = bytes.length - body.length + (at % body.length);
    return Uint8Array.from([...bytes.slice(0, index), bad, ...bytes.slice(index)]);
  }),
);

describe('over a real socket', () => {
  it(
    'keeps the invariants for fuzzed bodies sent with fetch',
    async () => {
      await fc.assert(
        fc.asyncProperty(runInput, async (input) => {
          const text = jsonText(input);
          const response = await fetch(`${fuzz.stack.url}/`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: text });
          await checkAnswer(response, describeRequest('/', { body: text }));
        }),
        fuzzParameters(5),
      );
    },
    timeoutFor(runsFor(5), 500),
  );

  it(
    'survives raw bytes on the socket and still answers /health',
    async () => {
      const port = Number(new URL(fuzz.stack.url).port);
      await fc.assert(
        fc.asyncProperty(rawRequest, async (bytes) => {
          const reply = await exchange(port, bytes);
          // Whatever Node's HTTP parser or the adapter answered, it was not a server error.
          expect(reply).not.toMatch(/^HTTP\/1\.1 5\d\d/m);
        }),
        fuzzParameters(3),
      );
      const health = await fetch(`${fuzz.stack.url}/health`);
      expect(health.status).toBe(200);
    },
    timeoutFor(runsFor(3), 3_500),
  );
});
