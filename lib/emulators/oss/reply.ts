/**
 * What the emulator answers, before it is written to the socket. Handlers build an OssReply
 * instead of writing, so that a `dropAfterApply` fault (lib/emulators/oss/faults.ts) can apply the
 * operation and then lose the answer.
 *
 * Every answer carries OSS's common response headers (`x-oss-request-id`, `Server: AliyunOSS`,
 * `Date`); errors carry `Content-Type: application/xml`, `x-oss-ec` when known and, for HEAD,
 * no body but the error XML base64-encoded in `x-oss-err` — the header ali-oss decodes for HEAD
 * errors (ali-oss lib/client.js requestError), so HEAD failures surface their real code too.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { OssError } from './errors.js';
import { element, xmlDocument } from './xml.js';

export interface OssReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** 24 upper-case hex digits, the shape of OSS request ids (e.g. 57ABD896CCB80C3669551234). */
export function newRequestId(): string {
  return randomBytes(12).toString('hex').toUpperCase();
}

export function emptyReply(status: number, headers: Record<string, string> = {}): OssReply {
  return { status, headers, body: Buffer.alloc(0) };
}

export function xmlReply(status: number, xml: string, headers: Record<string, string> = {}): OssReply {
  return { status, headers: { 'Content-Type': 'application/xml', ...headers }, body: Buffer.from(xml, 'utf8') };
}

export function errorXml(error: OssError, requestId: string, hostId: string): string {
  const children = [
    element('Code', error.code),
    element('Message', error.message),
    element('RequestId', requestId),
    element('HostId', hostId),
    ...error.extra.map(([name, value]) => element(name, value)),
  ];
  if (error.ec !== undefined) {
    children.push(element('EC', error.ec), element('RecommendDoc', `https://api.aliyun.com/troubleshoot?q=${error.ec}`));
  }
  return xmlDocument('Error', children);
}

export function errorReply(error: OssError, method: string, requestId: string, hostId: string): OssReply {
  const xml = errorXml(error, requestId, hostId);
  const headers: Record<string, string> = { 'Content-Type': 'application/xml' };
  if (error.ec !== undefined) headers['x-oss-ec'] = error.ec;
  if (method === 'HEAD') {
    headers['x-oss-err'] = Buffer.from(xml, 'utf8').toString('base64');
    return { status: error.status, headers, body: Buffer.alloc(0) };
  }
  return { status: error.status, headers, body: Buffer.from(xml, 'utf8') };
}

export function writeReply(res: ServerResponse, reply: OssReply, method: string, requestId: string, now: number = Date.now()): void {
  const headers: Record<string, string> = {
    Server: 'AliyunOSS',
    Date: new Date(now).toUTCString(),
    'x-oss-request-id': requestId,
    'x-oss-server-time': '0',
    ...reply.headers,
  };
  // HEAD and 204/304 answers have no body; HEAD keeps the Content-Length of what GET would send.
  const bodiless = method === 'HEAD' || reply.status === 204 || reply.status === 304;
  if (!bodiless) headers['Content-Length'] = String(reply.body.length);
  res.writeHead(reply.status, headers);
  res.end(bodiless ? undefined : reply.body);
}
