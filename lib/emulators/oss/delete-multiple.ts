/**
 * DeleteMultipleObjects (`POST /<bucket>/?delete`), as OSS documents it (docs/architecture.md §9.3):
 * - Content-MD5 is required (400 MissingArgument, EC 0016-00000606) and checked (400 InvalidDigest);
 * - the body is `<Delete><Quiet>bool</Quiet><Object><Key>k</Key></Object>…</Delete>`, at most
 *   1000 objects (400 MalformedXML otherwise);
 * - a key that does not exist counts as deleted;
 * - the answer is `<DeleteResult>` with one `<Deleted><Key>` per key, or — in quiet mode, when
 *   every deletion succeeded — no body at all ("简单模式…如果所有删除都成功的话，则没有消息体");
 * - encoding-type=url URL-encodes the returned keys and adds `<EncodingType>url</EncodingType>`.
 */
import type { BucketStore } from './bucket-store.js';
import { verifyContentMd5 } from './content-md5.js';
import { ossErrors } from './errors.js';
import { emptyReply, type OssReply, xmlReply } from './reply.js';
import { type OssRequest, queryValue } from './request.js';
import { rfc3986 } from './signature-v4.js';
import { element, unescapeXml, xmlDocument } from './xml.js';

export interface DeleteBody {
  quiet: boolean;
  keys: string[];
}

/** Parses the request body; throws MalformedXML when it is not a Delete document. */
export function parseDeleteBody(body: Buffer): DeleteBody {
  const text = body
    .toString('utf8')
    .replace(/^\s*<\?xml[^>]*\?>/, '')
    .trim();
  const root = /^<Delete>([\s\S]*)<\/Delete>$/.exec(text);
  if (!root) throw ossErrors.malformedXml();
  const inner = root[1] ?? '';
  const quietMatch = /<Quiet>\s*(true|false)\s*<\/Quiet>/.exec(inner);
  const keys: string[] = [];
  for (const object of inner.matchAll(/<Object>([\s\S]*?)<\/Object>/g)) {
    const key = /<Key>([\s\S]*?)<\/Key>/.exec(object[1] ?? '');
    if (!key) throw ossErrors.malformedXml();
    try {
      keys.push(unescapeXml(key[1] ?? ''));
    } catch {
      throw ossErrors.malformedXml();
    }
  }
  if (keys.length === 0 || keys.length > 1000) throw ossErrors.malformedXml();
  return { quiet: quietMatch?.[1] === 'true', keys };
}

export function deleteMultipleObjects(store: BucketStore, request: OssRequest, bucket: string): OssReply {
  if (!verifyContentMd5(request)) throw ossErrors.missingContentMd5();
  const encodingType = queryValue(request, 'encoding-type');
  if (encodingType !== undefined && encodingType !== 'url') throw ossErrors.invalidArgument('Invalid Encoding Method specified in Request', 'encoding-type', encodingType);
  const { quiet, keys } = parseDeleteBody(request.body);
  for (const key of keys) store.delete(bucket, key);
  if (quiet) return emptyReply(200);
  const name = (key: string): string => (encodingType === 'url' ? rfc3986(key) : key);
  const children = keys.map((key) => `<Deleted>${element('Key', name(key))}</Deleted>`);
  if (encodingType === 'url') children.unshift(element('EncodingType', 'url'));
  return xmlReply(200, xmlDocument('DeleteResult', children));
}
