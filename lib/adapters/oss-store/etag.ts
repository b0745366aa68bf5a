/**
 * Which object a read returned (docs/state-store.md "Load"): revision objects are written by simple
 * uploads only, whose OSS ETag is the quoted upper-case MD5 of their bytes, so bytes whose MD5 is the
 * ETag a listing gave are that listed object — not whatever holds its name by the time the read
 * arrives (an orphan created into a name pruning freed, docs/state-store.md "Proofs of the invariants").
 */
import { createHash } from 'node:crypto';

export function hasEtag(body: Buffer, etag: string): boolean {
  return etag.replace(/"/g, '').toUpperCase() === createHash('md5').update(body).digest('hex').toUpperCase();
}
