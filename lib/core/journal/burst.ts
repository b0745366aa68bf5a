/**
 * The event log's burst gatherer (docs/design/reattach.md "Cost"; event-log.ts): an event after a
 * quiet moment is placed at once; the events that follow it in the same turn of the event loop are
 * gathered and placed together when that turn is done, consecutive deltas of one message or tool
 * call merged into one event — their concatenation is the message; a merged delta takes the cursor
 * of its last part. A lone event waits for nothing.
 */
import type { AguiEvent } from '../translate/events.js';

/** An event and the kernel text cursor it was emitted with (position.ts). */
export interface Placed {
  event: AguiEvent;
  k: number;
}

/** The fields whose value names what a mergeable delta belongs to (docs/protocol.md §4.1). */
export const DELTA_OWNERS: Readonly<Record<string, 'messageId' | 'toolCallId'>> = {
  TEXT_MESSAGE_CONTENT: 'messageId',
  REASONING_MESSAGE_CONTENT: 'messageId',
  TOOL_CALL_ARGS: 'toolCallId',
};

export class BurstGatherer {
  /** The burst being gathered, if any. */
  private gathered: Placed[] | undefined;

  constructor(
    /** Runs `task` once the current turn of the event loop is done (setImmediate). */
    private readonly defer: (task: () => void) => void,
    /** Gives events their positions, in order. */
    private readonly place: (items: readonly Placed[]) => void,
  ) {}

  emit(event: AguiEvent, k: number): void {
    if (this.gathered !== undefined) {
      this.gathered.push({ event, k });
      return;
    }
    // The burst is placed before the write this event may start (both at the end of the turn), so
    // events emitted together — a span's two starts — are journaled together.
    this.gathered = [];
    this.defer(() => this.flush());
    this.place([{ event, k }]);
  }

  /** Places what is gathered now, merged. */
  flush(): void {
    const burst = this.gathered;
    this.gathered = undefined;
    if (burst === undefined || burst.length === 0) return;
    const merged: Placed[] = [];
    for (const item of burst) {
      const previous = merged.at(-1);
      if (previous !== undefined && mergeable(previous.event, item.event)) {
        // A new object: the emitted event is never changed; the first part's timestamp is kept.
        const delta = `${deltaOf(previous.event)}${deltaOf(item.event)}`;
        merged[merged.length - 1] = { event: { ...previous.event, delta } as AguiEvent, k: item.k };
      } else merged.push(item);
    }
    this.place(merged);
  }

  /** Forgets what is gathered: nothing of it is placed (a fenced log). */
  drop(): void {
    this.gathered = undefined;
  }
}

function deltaOf(event: AguiEvent): string {
  return (event as unknown as Record<string, string>)['delta'] ?? '';
}

function mergeable(previous: AguiEvent, next: AguiEvent): boolean {
  const field = DELTA_OWNERS[next.type];
  if (field === undefined || previous.type !== next.type) return false;
  const a = previous as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  return typeof a[field] === 'string' && a[field] === b[field] && typeof a['delta'] === 'string' && typeof b['delta'] === 'string';
}
