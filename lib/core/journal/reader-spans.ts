/**
 * What one reader's stream has opened and not closed (docs/protocol.md §6.15 "Limits"): the journal's
 * order may change after a reader read it — a producer still alive writes past the point where a
 * takeover or the sweeper forked its run — so a reader can hold events of a branch that died, and the
 * fork then closes (or opens) the same span again. The reader's stream stays one valid AG-UI run
 * (§4.3): an event that closes a span this stream already closed, or opens one it holds open, is not
 * sent; a run ended is ended until the next `RUN_STARTED`. A reader that came back with an event id
 * holds spans opened on its earlier connection, so a close of a span this stream never saw is sent.
 */
import type { AguiEvent } from '../translate/events.js';

/** Span events: which kind of span, whether it opens, and the field naming it. */
const SPANS: Readonly<Record<string, { kind: string; opens: boolean; key: 'messageId' | 'toolCallId' | 'stepName' }>> = {
  TEXT_MESSAGE_START: { kind: 'text', opens: true, key: 'messageId' },
  TEXT_MESSAGE_END: { kind: 'text', opens: false, key: 'messageId' },
  REASONING_START: { kind: 'reasoning', opens: true, key: 'messageId' },
  REASONING_END: { kind: 'reasoning', opens: false, key: 'messageId' },
  REASONING_MESSAGE_START: { kind: 'reasoning-message', opens: true, key: 'messageId' },
  REASONING_MESSAGE_END: { kind: 'reasoning-message', opens: false, key: 'messageId' },
  TOOL_CALL_START: { kind: 'tool', opens: true, key: 'toolCallId' },
  TOOL_CALL_END: { kind: 'tool', opens: false, key: 'toolCallId' },
  STEP_STARTED: { kind: 'step', opens: true, key: 'stepName' },
  STEP_FINISHED: { kind: 'step', opens: false, key: 'stepName' },
};

export class ReaderSpans {
  private readonly open = new Set<string>();
  private readonly closed = new Set<string>();
  private ended = false;

  /** Whether `event` keeps the reader's stream valid; records what it opens, closes or ends. */
  admit(event: AguiEvent): boolean {
    if (event.type === 'RUN_STARTED') {
      this.open.clear();
      this.closed.clear();
      this.ended = false;
      return true;
    }
    if (this.ended) return false;
    if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') {
      this.ended = true;
      return true;
    }
    const span = SPANS[event.type];
    if (!span) return true;
    const id = `${span.kind}:${String((event as unknown as Record<string, unknown>)[span.key])}`;
    const [from, to] = span.opens ? [this.closed, this.open] : [this.open, this.closed];
    if (to.has(id)) return false;
    from.delete(id);
    to.add(id);
    return true;
  }
}
