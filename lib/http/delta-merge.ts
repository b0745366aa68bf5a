/**
 * Consecutive content deltas of one message or tool call, gathered in one burst, go out as one
 * event (docs/protocol.md §4.1): AG-UI defines a message's text (and a tool call's arguments) as the
 * concatenation of its deltas, so `"Fast "` + `"answer."` and `"Fast answer."` are the same message
 * to every client, while a burst of 250 two-character deltas costs a browser 250 parses and renders.
 * Only what is already gathered merges: a delta that follows a quiet moment still goes out alone,
 * at once, so no delta waits for another (docs/architecture.md §2.3).
 */
import type { AguiEvent } from '../core/translate/events.js';

/** The content events whose deltas concatenate, and the field naming what they belong to. */
export const DELTA_OWNERS: Readonly<Record<string, 'messageId' | 'toolCallId'>> = {
  TEXT_MESSAGE_CONTENT: 'messageId',
  REASONING_MESSAGE_CONTENT: 'messageId',
  TOOL_CALL_ARGS: 'toolCallId',
};

interface HeldDelta {
  owner: string;
  /** A copy of the burst's first delta event (the emitted event is never changed), its timestamp kept. */
  event: Record<string, unknown>;
  delta: string;
}

/** Holds the latest mergeable delta of a burst until something else, or the burst's end, comes. */
export class DeltaMerge {
  private held: HeldDelta | undefined;

  /** `release` takes each held delta when it goes out, every delta merged into it. */
  constructor(private readonly release: (event: Record<string, unknown>) => void) {}

  /**
   * Takes one event of the burst: true if it was merged into (or is now) the held delta; false if
   * it cannot merge, in which case the held delta has been released first.
   */
  offer(event: AguiEvent): boolean {
    const ownerField = DELTA_OWNERS[event.type];
    const fields = event as unknown as Record<string, unknown>;
    const owner = ownerField === undefined ? undefined : fields[ownerField];
    const delta = fields['delta'];
    if (typeof owner !== 'string' || typeof delta !== 'string') {
      this.flush();
      return false;
    }
    const held = this.held;
    if (held !== undefined && held.event['type'] === event.type && held.owner === owner) {
      held.delta += delta;
      return true;
    }
    this.flush();
    this.held = { owner, event: { ...fields }, delta };
    return true;
  }

  /** Releases the held delta, if any. */
  flush(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    held.event['delta'] = held.delta;
    this.release(held.event);
  }
}
