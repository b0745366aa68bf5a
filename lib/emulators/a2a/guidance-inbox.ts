/**
 * Guidance waiting for a live task's scenario (docs/protocol.md §6.13). The message guard offers
 * each guidance message to the task's inbox and answers the caller once the scenario has applied
 * it; a scenario that never takes it (or holds it) leaves it waiting until the task stops, and the
 * caller then learns the state the task stopped in.
 */
import type { Json, TaskScript } from './task-script.js';

const STOPPED = new Set(['INPUT_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED', 'AUTH_REQUIRED']);

export interface GuidanceOutcome {
  /** The task's state once the guidance was applied, or the state it stopped in without applying it. */
  state: string;
  applied: boolean;
}

export interface GuidanceOffer {
  text: string;
  /** The scenario applied it; the caller is told the task's current state. */
  applied(): void;
  /** The scenario keeps it unapplied until the task stops (a kernel busy in a long tool call). */
  hold(): void;
}

interface Pending {
  text: string;
  settle: (outcome: GuidanceOutcome) => void;
}

export class GuidanceInbox {
  private readonly queue: Pending[] = [];
  private readonly held = new Set<Pending>();
  private arrival: (() => void) | undefined;

  constructor(private readonly script: TaskScript) {
    // A task that stops answers every guidance still waiting with the state it stopped in.
    script.taps.add((item) => {
      const state = String(((item['statusUpdate'] as Json | undefined)?.['status'] as Json | undefined)?.['state'] ?? '').replace('TASK_STATE_', '');
      if (!STOPPED.has(state)) return;
      for (const pending of [...this.queue.splice(0), ...this.held]) pending.settle({ state, applied: false });
      this.held.clear();
    });
  }

  /** The guard's side: resolves when the scenario applied the text or the task stopped. */
  offer(text: string): Promise<GuidanceOutcome> {
    if (this.script.ended) return Promise.resolve({ state: this.script.state, applied: false });
    return new Promise((settle) => {
      this.queue.push({ text, settle });
      this.arrival?.();
    });
  }

  /** The scenario's side: the next guidance, waiting up to `ms` for one (cancellation throws). */
  async next(ms: number): Promise<GuidanceOffer | undefined> {
    if (this.queue.length === 0) {
      const arrived = new Promise<void>((resolve) => {
        this.arrival = resolve;
      });
      const pause = this.script.pause(ms);
      // The race below sees a cancellation; this handler only keeps a pause that lost the race quiet.
      pause.catch(() => undefined);
      await Promise.race([pause, arrived]);
      this.arrival = undefined;
    }
    const pending = this.queue.shift();
    if (!pending) return undefined;
    return {
      text: pending.text,
      applied: () => pending.settle({ state: this.script.state, applied: true }),
      hold: () => this.held.add(pending),
    };
  }
}

const inboxes = new WeakMap<TaskScript, GuidanceInbox>();

export function guidanceInbox(script: TaskScript): GuidanceInbox {
  let inbox = inboxes.get(script);
  if (!inbox) {
    inbox = new GuidanceInbox(script);
    inboxes.set(script, inbox);
  }
  return inbox;
}
