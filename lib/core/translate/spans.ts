/**
 * The AG-UI span table (docs/protocol.md §4.3), the one account of which events open and close
 * which span: the translator's lanes emit by it, and whoever reads a stream back asks it — the
 * spans a run left open for a takeover (lib/core/journal/open-spans.ts), a reader's stream across a
 * fork (lib/core/journal/reader-spans.ts), the tests' oracle. A tool call's result is a span of its
 * own kind that opens once and never closes: a second result of one call is never news.
 */
import type { AguiEvent } from './events.js';

export type SpanKind = 'text' | 'reasoning' | 'reasoning-message' | 'tool' | 'tool-result' | 'step';

interface SpanRule {
  kind: SpanKind;
  opens: boolean;
  key: 'messageId' | 'toolCallId' | 'stepName';
}

export const SPAN_TABLE: Readonly<Record<string, SpanRule>> = {
  TEXT_MESSAGE_START: { kind: 'text', opens: true, key: 'messageId' },
  TEXT_MESSAGE_END: { kind: 'text', opens: false, key: 'messageId' },
  REASONING_START: { kind: 'reasoning', opens: true, key: 'messageId' },
  REASONING_END: { kind: 'reasoning', opens: false, key: 'messageId' },
  REASONING_MESSAGE_START: { kind: 'reasoning-message', opens: true, key: 'messageId' },
  REASONING_MESSAGE_END: { kind: 'reasoning-message', opens: false, key: 'messageId' },
  TOOL_CALL_START: { kind: 'tool', opens: true, key: 'toolCallId' },
  TOOL_CALL_END: { kind: 'tool', opens: false, key: 'toolCallId' },
  TOOL_CALL_RESULT: { kind: 'tool-result', opens: true, key: 'toolCallId' },
  STEP_STARTED: { kind: 'step', opens: true, key: 'stepName' },
  STEP_FINISHED: { kind: 'step', opens: false, key: 'stepName' },
};

export interface SpanEvent {
  kind: SpanKind;
  opens: boolean;
  /** What the span is of: the message, tool call or step it names. */
  id: string;
}

/** The span `event` opens or closes, if any. */
export function spanOf(event: AguiEvent): SpanEvent | undefined {
  const rule = SPAN_TABLE[event.type];
  if (!rule) return undefined;
  return { kind: rule.kind, opens: rule.opens, id: String((event as unknown as Record<string, unknown>)[rule.key]) };
}
