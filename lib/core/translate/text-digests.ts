/**
 * Resume de-duplication of assistant text (docs/protocol.md §4.6).
 *
 * When a run starts again on the same A2A task the kernel may repeat text the caller has already
 * seen (cumulative status texts, a replayed final text). The thread document keeps digests of
 * every message text already emitted; the first text of a message in a later run drops its
 * longest already-seen prefix. A digest is "<code points>:<sha256 hex>" so only the prefixes of
 * known lengths are hashed — linear in the number of digests, not quadratic in the text.
 */
import { type RunningDigest, runningSha256, sha256Hex } from '../hash.js';

export const MAX_TEXT_DIGESTS = 256;

export function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    // A low surrogate completes a pair already counted.
    if (unit < 0xdc00 || unit > 0xdfff) count += 1;
  }
  return count;
}

export function textDigest(text: string): string {
  return `${countCodePoints(text)}:${sha256Hex(text)}`;
}

/**
 * The digest of a message's text as it grows, without rehashing what came before: a long
 * answer with many tool calls stays linear (each tool start stores the text's digest so far).
 */
export class GrowingTextDigest {
  private readonly hash: RunningDigest = runningSha256();
  private codePoints = 0;
  /**
   * Text appended but not hashed yet: deltas are often a few characters, and hashing each alone
   * costs more in calls than in bytes. Hashed in one piece when a digest is asked for, or once
   * enough has gathered — the same bytes in the same order, so the same digest.
   */
  private pending = '';

  append(text: string): void {
    this.pending += text;
    this.codePoints += countCodePoints(text);
    if (this.pending.length >= PENDING_HASH_CHARS) this.flush(true);
  }

  get empty(): boolean {
    return this.codePoints === 0;
  }

  digest(): string {
    this.flush();
    return `${this.codePoints}:${this.hash.hex()}`;
  }

  /**
   * Hashes what is pending. `keepHighSurrogate`: a high surrogate at the end stays pending, since
   * its pair may come with the next delta — hashed apart, each half would be encoded as U+FFFD and
   * the digest would no longer be the text's (textDigest).
   */
  private flush(keepHighSurrogate = false): void {
    const last = this.pending.charCodeAt(this.pending.length - 1);
    const keep = keepHighSurrogate && last >= 0xd800 && last <= 0xdbff ? 1 : 0;
    if (this.pending.length <= keep) return;
    this.hash.update(this.pending.slice(0, this.pending.length - keep));
    this.pending = this.pending.slice(this.pending.length - keep);
  }
}

/** How much appended text waits before it is hashed (GrowingTextDigest). */
const PENDING_HASH_CHARS = 16 * 1024;

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
