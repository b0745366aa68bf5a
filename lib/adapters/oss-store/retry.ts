/**
 * Bounded retries for the OSS requests that may be repeated blindly — reads, listings and deletes
 * (docs/state-store.md "Errors"). ali-oss does not retry by default. Only `transient` failures
 * (5xx, 429, dropped connections, timeouts) are retried; everything else fails at once. A create is
 * never retried here: the store first finds out whether the lost attempt landed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { OssRequestError } from './errors.js';

export interface RetryPolicy {
  /** Total tries, at least 1. */
  attempts: number;
  /** First back-off; doubles each time, with jitter. */
  backoffMs: number;
}

export function isTransient(error: unknown): boolean {
  return error instanceof OssRequestError && error.kind === 'transient';
}

/** Waits before try `attempt + 1` (attempt counts from 1). */
export async function backOff(policy: RetryPolicy, attempt: number): Promise<void> {
  if (policy.backoffMs <= 0) return;
  const base = policy.backoffMs * 2 ** (attempt - 1);
  await sleep(Math.round(base * (0.5 + Math.random())));
}

export async function withRetries<T>(policy: RetryPolicy, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!isTransient(error) || attempt >= policy.attempts) throw error;
    }
    await backOff(policy, attempt);
  }
}
