/**
 * The per-instance cap on live streams (docs/protocol.md §1.4, IAC_CODE_AGUI_MAX_ACTIVE_RUNS): a
 * run holds a place from before its admission write until its stream has ended and its clean-up
 * finished; beyond the cap a request is refused with 503 SERVER_BUSY and Retry-After before any
 * state is written or anything is sent to the kernel. Any other long-lived stream route takes its
 * place through the same gate.
 */
import { AdapterError } from '../core/errors.js';

/** IAC_CODE_AGUI_MAX_ACTIVE_RUNS's default (docs/protocol.md §9). */
export const DEFAULT_MAX_ACTIVE_RUNS = 1_000;

/** What a refused caller is told to wait, in seconds: runs are long, but places free up all the time. */
export const SERVER_BUSY_RETRY_AFTER_SECONDS = 5;

export class LiveStreamGate {
  private live = 0;

  constructor(readonly limit: number = DEFAULT_MAX_ACTIVE_RUNS) {}

  /** Live streams holding a place now. */
  get size(): number {
    return this.live;
  }

  /** Takes a place, or throws SERVER_BUSY. The returned function gives it back (once; later calls do nothing). */
  enter(): () => void {
    if (this.live >= this.limit) throw new AdapterError('SERVER_BUSY', 'serverBusy');
    this.live += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.live -= 1;
    };
  }
}
