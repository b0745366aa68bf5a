/**
 * What one instance remembers per thread (docs/state-store.md "What an instance remembers"): the
 * newest revision it has seen committed, its writeId, since when (OSS server time) that revision is
 * known to have been the newest, and — when the driver remembers documents — that revision's bytes.
 * It is only ever a shortcut: a remembered revision that is no longer the newest makes the next
 * create meet a 409 (or a listing show a newer name), and the driver reads again.
 */
import { hasEtag } from './etag.js';
import { ByteBoundedLruMap, LruMap } from './lru.js';

export interface SeenRevision {
  /** 0: the thread had no revision at all. */
  revision: number;
  /** The writeId of that revision (null for revision 0). */
  writeId: string | null;
  /**
   * An OSS server time (epoch ms) at which this revision was the thread's newest: every later
   * revision was created after it. Undefined when no such moment is known.
   */
  newestAt?: number | undefined;
}

/** Remembered revision bodies, all threads together: a few KB each, never more than this. */
const BODY_BUDGET_BYTES = 8 * 1024 * 1024;

export class RevisionCache {
  private readonly seen: LruMap<string, SeenRevision>;
  private readonly bodies = new ByteBoundedLruMap<string>(BODY_BUDGET_BYTES);

  constructor(capacity = 10_000) {
    this.seen = new LruMap(capacity);
  }

  /** The writeId of `revision` when it is the one remembered for this thread. */
  writeIdOf(threadPrefix: string, revision: number): string | null | undefined {
    const entry = this.seen.get(threadPrefix);
    return entry?.revision === revision ? entry.writeId : undefined;
  }

  /** The newest committed revision this process has seen for the thread. */
  newest(threadPrefix: string): number | undefined {
    return this.seen.get(threadPrefix)?.revision;
  }

  /** When `revision` is the one remembered: a server time at which it was the newest, if known. */
  newestAt(threadPrefix: string, revision: number): number | undefined {
    const entry = this.seen.get(threadPrefix);
    return entry?.revision === revision ? entry.newestAt : undefined;
  }

  /** The remembered revision's stored bytes, when kept. */
  body(threadPrefix: string): { revision: number; body: Buffer } | undefined {
    const entry = this.seen.get(threadPrefix);
    const body = this.bodies.get(threadPrefix);
    if (!entry || !body) return undefined;
    return { revision: entry.revision, body };
  }

  /**
   * The remembered bytes of `revision` when OSS still holds exactly them: `etag` (as listed) is
   * their MD5. An object replaced in place by something else than the driver — which never
   * overwrites — is read again and judged on what it holds now.
   */
  bodyMatching(threadPrefix: string, revision: number, etag: string | undefined): Buffer | undefined {
    const remembered = this.body(threadPrefix);
    if (remembered?.revision !== revision || etag === undefined) return undefined;
    return hasEtag(remembered.body, etag) ? remembered.body : undefined;
  }

  /**
   * Remembers a committed revision (and, given, its bytes); never moves a thread backwards. The
   * same revision seen again keeps the later moment it was known newest.
   */
  remember(threadPrefix: string, entry: SeenRevision, body?: Buffer): void {
    const current = this.seen.get(threadPrefix);
    if (current !== undefined && current.revision > entry.revision) return;
    const same = current !== undefined && current.revision === entry.revision && current.writeId === entry.writeId;
    const newestAt = same ? latest(current.newestAt, entry.newestAt) : entry.newestAt;
    this.seen.set(threadPrefix, { revision: entry.revision, writeId: entry.writeId, newestAt });
    if (body) this.bodies.set(threadPrefix, body);
    else if (!same) this.bodies.delete(threadPrefix);
  }
}

function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
