/**
 * A raw HTTP/1.1 client over one TCP socket, for what fetch hides: a body that keeps coming after
 * the answer, a body that stalls, an `Expect: 100-continue` handshake, and the exact response
 * head (status line and every header, `connection` included; docs/protocol.md §1.5).
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Interim 1xx status lines seen before the final answer (e.g. 100 Continue). */
  interim: number[];
}

export interface RawExchange {
  socket: Socket;
  /** Resolves with the first final response, or rejects when the socket ended before one was read. */
  response: Promise<RawResponse>;
  /** Resolves when the socket closed (by either side). */
  closed: Promise<void>;
  /** Writes bytes unless the socket is gone; resolves false when it could not. */
  write(data: string | Uint8Array): Promise<boolean>;
  /** Everything received so far, as latin1 text (e.g. to see an interim `100 Continue`). */
  received(): string;
}

/** Parses the first final response in `raw` once it is complete; undefined while incomplete. */
export function parseResponse(raw: Buffer): RawResponse | undefined {
  const interim: number[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = raw.indexOf('\r\n\r\n', offset);
    if (headEnd < 0) return undefined;
    const lines = raw.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const status = Number(lines[0]?.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    offset = headEnd + 4;
    if (status >= 100 && status < 200) {
      interim.push(status);
      continue;
    }
    const rest = raw.subarray(offset);
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (rest.length < length) return undefined;
      return { status, headers, body: rest.subarray(0, length).toString('utf8'), interim };
    }
    if (headers['transfer-encoding'] === 'chunked') {
      const body = dechunk(rest);
      return body === undefined ? undefined : { status, headers, body, interim };
    }
    return { status, headers, body: '', interim };
  }
}

function dechunk(raw: Buffer): string | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(raw.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    if (raw.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/** Opens a socket to `url` and sends `head` (the request line and headers, without the blank line). */
export function rawRequest(url: string, head: string[], options: { readAfterSending?: boolean } = {}): RawExchange {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  // A busy client reads its answer only after it has sent its body: until then the answer waits
  // in the kernel's buffer, where a reset from the server discards it.
  if (options.readAfterSending) socket.pause();
  socket.on('error', () => undefined);
  const received: Buffer[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const response = new Promise<RawResponse>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const parsed = parseResponse(Buffer.concat(received));
      if (parsed) resolve(parsed);
    });
    void closed.then(() => reject(new Error(`socket closed before a response was read (${Buffer.concat(received).length} bytes received)`)));
  });
  response.catch(() => undefined);
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  return {
    socket,
    response,
    closed,
    received: () => Buffer.concat(received).toString('latin1'),
    write: (data) =>
      new Promise<boolean>((resolve) => {
        if (socket.destroyed || !socket.writable) {
          resolve(false);
          return;
        }
        socket.write(data, (error) => resolve(!error));
      }),
  };
}

/** Whether a TCP connection to the server behind `url` is refused (it stopped listening, or never did). */
export function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
