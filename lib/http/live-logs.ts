/**
 * The event logs of the runs this instance produces right now (docs/protocol.md §6.15), by
 * execution: a subscriber on this instance joins the producer's own log — no journal read, nothing
 * lost between a catch-up and the live records — and a takeover knows not to take over its own.
 * Types only here: the app builds this registry at start-up, the event log loads with the routes
 * (docs/architecture.md §6.3).
 */
import type { EventLog } from '../core/journal/event-log.js';

export class LiveLogs {
  private readonly logs = new Map<string, EventLog>();
  /** What each resumable run does when the instance stops: it hands itself over (docs/protocol.md §6.15). */
  private readonly handOvers = new Map<EventLog, () => void>();

  add(executionId: string, log: EventLog): void {
    this.logs.set(executionId, log);
  }

  /** `handOver` runs when the instance stops while the log's run is live. */
  whenStopping(log: EventLog, handOver: () => void): void {
    this.handOvers.set(log, handOver);
  }

  /** The instance stops: every resumable run live here hands itself over, with or without a caller. */
  stopping(): void {
    for (const handOver of [...this.handOvers.values()]) handOver();
  }

  /** Ends the log (everything written and released) and forgets it. */
  async close(executionId: string, log: EventLog): Promise<void> {
    this.handOvers.delete(log);
    try {
      await log.close();
    } finally {
      if (this.logs.get(executionId) === log) this.logs.delete(executionId);
    }
  }

  of(executionId: string): EventLog | undefined {
    return this.logs.get(executionId);
  }
}
