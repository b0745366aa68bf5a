/**
 * What one reader's stream has opened and not closed (docs/protocol.md §6.15 "Limits"): the journal's
 * order may change after a reader read it — a producer still alive writes past the point where a
 * takeover or the sweeper forked its run — so a reader can hold events of a branch that died, and the
 * fork then closes (or opens) the same span again. The reader's stream stays one valid AG-UI run
 * (§4.3): an event that closes a span this stream already closed, or opens one it holds open, is not
 * sent (the span table, lib/core/translate/spans.ts — a tool call's second result too); a run
 * ended is ended until the next `RUN_STARTED`. A reader that came back with an event id
 * holds spans opened on its earlier connection, so a close of a span this stream never saw is sent.
 */
import type { AguiEvent } from '../translate/events.js';
import { spanOf } from '../translate/spans.js';

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
    const span = spanOf(event);
    if (!span) return true;
    const id = `${span.kind}:${span.id}`;
    const [from, to] = span.opens ? [this.closed, this.open] : [this.open, this.closed];
    if (to.has(id)) return false;
    from.delete(id);
    to.add(id);
    return true;
  }
}
