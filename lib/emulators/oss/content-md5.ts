/**
 * Content-MD5 checking: when a request carries Content-MD5, OSS computes the MD5 of the body it
 * received and refuses a mismatch with 400 InvalidDigest (OSS PutObject / DeleteMultipleObjects
 * documentation), so a body corrupted in transit is never stored.
 */
import { createHash } from 'node:crypto';
import { ossErrors } from './errors.js';
import { header, type OssRequest } from './request.js';

/** Returns whether a Content-MD5 was present (and correct); throws InvalidDigest when wrong. */
export function verifyContentMd5(request: OssRequest): boolean {
  const claimed = header(request, 'content-md5');
  if (claimed === undefined) return false;
  const actual = createHash('md5').update(request.body).digest('base64');
  if (claimed.trim() !== actual) throw ossErrors.invalidDigest();
  return true;
}
