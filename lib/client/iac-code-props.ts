/**
 * `forwardedProps.iacCode` as the client sends it (docs/protocol.md §3.5): `schemaVersion` 1, the
 * thread's `rosInvocationId`, `cwd`, and whatever else the options or the run add.
 *
 * `rosInvocationId` names an execution (§6.1): bound when a new turn starts one, repeated by every
 * resume of it (else 409 `EXECUTION_LOST`, §6.4 step 5), and needed by the cancel route (§6.7).
 * Nothing requires a new one per turn (the console keeps one per thread), so the client keeps one
 * per thread. By default it is derived from the thread id, so that every agent and runner
 * instance — a reloaded page, another runtime process, one restarted — names the same one for a
 * thread without having been told: a runner that holds nothing (iac-code-agent-runner.ts) can then
 * resume and cancel any thread.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export interface IacCodeProps {
  /** The thread's workspace, an absolute path (§3.6); bound to the thread by its first run (§6.3). */
  cwd: string;
  /**
   * The thread's ROS invocation id (§3.5, at most 256 characters): a string for every thread, or a
   * function of the thread id. Default: `iac-code-client-` + 32 hex digits of SHA-256(threadId),
   * the same on every instance.
   */
  rosInvocationId?: string | ((threadId: string) => string);
  /**
   * Any other `forwardedProps.iacCode` field (§3.5): `model`, `userId`, `preferredLanguage`,
   * `runMode`, `thinking`, `llmApiKey`, … A run's own `forwardedProps.iacCode` overrides these.
   */
  iacCode?: Record<string, unknown>;
}

export function defaultRosInvocationId(threadId: string): string {
  return `iac-code-client-${bytesToHex(sha256(utf8ToBytes(threadId))).slice(0, 32)}`;
}

export function rosInvocationIdFor(props: Pick<IacCodeProps, 'rosInvocationId'>, threadId: string): string {
  const given = props.rosInvocationId;
  if (typeof given === 'function') return given(threadId);
  return given ?? defaultRosInvocationId(threadId);
}

/** The iacCode object of a run: the options, then the run's own fields (which may name another rosInvocationId). */
export function iacCodeOf(props: IacCodeProps, rosInvocationId: string, forwarded: unknown): Record<string, unknown> {
  const own = typeof forwarded === 'object' && forwarded !== null && !Array.isArray(forwarded) ? (forwarded as Record<string, unknown>) : {};
  return { ...props.iacCode, schemaVersion: 1, rosInvocationId, cwd: props.cwd, ...own };
}

/** The header that asks for a detach grace (§6.15 "Whose grace"). */
export const DETACH_GRACE_HEADER = 'X-Iac-Code-Detach-Grace-Ms';
export const DEFAULT_DETACH_GRACE_MS = 60_000;
