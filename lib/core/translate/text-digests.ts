/**
 * Resume de-duplication of assistant text (contract §B.3).
 *
 * When a run starts again on the same A2A task the kernel may repeat text the caller has already
 * seen (cumulative status texts, a replayed final text). The thread document keeps digests of
 * every message text already emitted; the first text of a message in a later run drops its
 * longest already-seen prefix. A digest is "<code points>:<sha256 hex>" so only the prefixes of
 * known lengths are hashed — linear in the number of digests, not quadratic in the text.
 */
import { sha256Hex } from '../hash.js';

export const MAX_TEXT_DIGESTS = 256;

export function textDigest(text: string): string {
  return `${Array.from(text).length}:${sha256Hex(text)}`;
}

export function dropKnownPrefix(text: string, digests: ReadonlySet<string>): string {
  if (digests.size === 0) return text;
  const codePoints = Array.from(text);
  const lengths = new Set<number>();
  for (const digest of digests) {
    const length = Number(digest.slice(0, digest.indexOf(':')));
    if (length > 0 && length <= codePoints.length) lengths.add(length);
  }
  for (const length of [...lengths].sort((a, b) => b - a)) {
    const prefix = codePoints.slice(0, length).join('');
    if (digests.has(`${length}:${sha256Hex(prefix)}`)) return codePoints.slice(length).join('');
  }
  return text;
}
