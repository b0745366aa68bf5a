/**
 * Renews the active-run lease while a run streams (docs/protocol.md §6.6: default every 10 s for a 30 s
 * lease). A renewal that finds the lease gone aborts the run, which then ends with
 * RUN_ERROR EXECUTION_LOST (or CANCELLED when a cancel ended the execution) and writes nothing.
 */
import { errorFields } from '../error-fields.js';
import { renewLease } from '../thread/run-transitions.js';
import type { RunSession } from './run-session.js';
import { LeaseLostError } from './run-thread.js';

export class LeaseKeeper {
  private readonly timer: ReturnType<typeof setInterval>;
  lost: LeaseLostError | undefined;
  /** The expiry of the last lease this run knows it holds. */
  private heldUntil: number;

  /**
   * `onLost` aborts the run (the run's own controller, which the caller's abort is forwarded to as
   * well: one controller per run, not a second one joined by AbortSignal.any, docs/architecture.md §2).
   */
  constructor(
    private readonly session: RunSession,
    private readonly onLost: (error: LeaseLostError) => void,
  ) {
    this.heldUntil = session.thread.document.activeRun?.expiresAt ?? 0;
    const { leaseRenewMs } = session.deps;
    this.timer = setInterval(() => void this.renew(), leaseRenewMs);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    const { clock, leaseTtlMs, logger } = this.session.deps;
    const expiresAt = clock() + leaseTtlMs;
    try {
      await this.session.thread.update((document) => renewLease(document, expiresAt));
      this.heldUntil = expiresAt;
      logger.debug('lease renewed', { expiresAt });
    } catch (error) {
      if (error instanceof LeaseLostError) {
        this.lose(error);
        return;
      }
      // A passing store failure: the next tick tries again; the lease outlives several ticks. Once
      // it has expired unrenewed, another instance may own the thread: stop before racing it.
      logger.warn('lease renewal failed', { error: errorFields(error) });
      if (clock() >= this.heldUntil) this.lose(new LeaseLostError(false));
    }
  }

  private lose(error: LeaseLostError): void {
    this.lost = error;
    this.stop();
    this.onLost(error);
  }
}
