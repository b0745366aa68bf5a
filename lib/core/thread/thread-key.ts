/**
 * Thread keys (docs/protocol.md §6.11, normative for every driver; docs/protocol.md §6.11): the raw threadId when
 * it is a safe lower-case file name of at most 200 characters, else "aguiid~" + UTF-8 hex when
 * that stays ≤ 200 characters, else "aguihash~" + SHA-256 hex. Encoding upper-case ids keeps
 * "Thread-1" and "thread-1" apart on case-insensitive filesystems; the 200-character cap keeps
 * every key — and the file driver's `<key>.json.<uuid>.tmp` beside it — within a 255-byte file name.
 */

import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { sha256Hex } from '../hash.js';

const SAFE = /^[a-z0-9_.-]+$/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/;
/** The longest key of any kind: raw ids and hex keys alike. */
const MAX_KEY = 200;

export function threadKey(threadId: string): string {
  if (
    threadId.length <= MAX_KEY &&
    SAFE.test(threadId) &&
    threadId !== '.' &&
    threadId !== '..' &&
    !threadId.endsWith('.') &&
    !WINDOWS_RESERVED.test(threadId.split('.')[0] ?? '')
  ) {
    return threadId;
  }
  const hexKey = `aguiid~${bytesToHex(utf8ToBytes(threadId))}`;
  return hexKey.length <= MAX_KEY ? hexKey : `aguihash~${sha256Hex(threadId)}`;
}
