/**
 * A reader's stream across a fork it read both sides of (lib/core/journal/reader-spans.ts,
 * docs/protocol.md §6.15 "Limits"): a span closed on the dead branch is not closed again by the
 * fork, one open is not opened again, nothing follows a run's end but the next run — and a reader
 * back with an event id may close what it was sent on an earlier connection.
 */
import { describe, expect, it } from 'vitest';
import { ReaderSpans } from '../../lib/core/journal/reader-spans.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';

const event = (type: string, fields: Record<string, unknown> = {}) => ({ type, timestamp: 1, ...fields }) as unknown as AguiEvent;

describe('a reader’s spans', () => {
  it('sends a producer’s late close and the fork’s close of the same message once, and nothing after the end', () => {
    const spans = new ReaderSpans();
    const stream = [
      event('RUN_STARTED', { threadId: 't', runId: 'r' }),
      event('TEXT_MESSAGE_START', { messageId: 'm' }),
      event('TEXT_MESSAGE_CONTENT', { messageId: 'm', delta: 'a' }),
      event('TOOL_CALL_START', { toolCallId: 't1', toolCallName: 'x' }),
      // The dead branch: the producer closed them after the fork point …
      event('TOOL_CALL_END', { toolCallId: 't1' }),
      event('TEXT_MESSAGE_END', { messageId: 'm' }),
      // … and the fork closes them again, reopens the tool, then ends the run.
      event('TEXT_MESSAGE_END', { messageId: 'm' }),
      event('TOOL_CALL_START', { toolCallId: 't2', toolCallName: 'x' }),
      event('TOOL_CALL_START', { toolCallId: 't2', toolCallName: 'x' }),
      event('TOOL_CALL_END', { toolCallId: 't2' }),
      event('RUN_ERROR', { code: 'CANCELLED', message: 'cancelled' }),
      event('RUN_ERROR', { code: 'CANCELLED', message: 'cancelled' }),
      event('RUN_STARTED', { threadId: 't', runId: 'r2' }),
      event('TEXT_MESSAGE_START', { messageId: 'm' }),
    ];
    expect(stream.map((item) => spans.admit(item))).toEqual([true, true, true, true, true, true, false, true, false, true, true, false, true, true]);
  });

  it('lets a reader back with an event id close a span it was sent before this stream', () => {
    const spans = new ReaderSpans();
    expect(spans.admit(event('TEXT_MESSAGE_END', { messageId: 'm' }))).toBe(true);
    expect(spans.admit(event('STEP_FINISHED', { stepName: 's' }))).toBe(true);
    expect(spans.admit(event('STEP_STARTED', { stepName: 's' }))).toBe(true);
    expect(spans.admit(event('STEP_FINISHED', { stepName: 's' }))).toBe(true);
  });
  it('sends a tool call’s result once, when both sides of a fork carry it (the span table: a result is a span that never closes)', () => {
    const spans = new ReaderSpans();
    const stream = [
      event('RUN_STARTED', { threadId: 't', runId: 'r' }),
      event('TOOL_CALL_START', { toolCallId: 't1', toolCallName: 'x' }),
      event('TOOL_CALL_END', { toolCallId: 't1' }),
      event('TOOL_CALL_RESULT', { toolCallId: 't1', messageId: 'm1', content: 'ok' }),
      event('TOOL_CALL_RESULT', { toolCallId: 't1', messageId: 'm1', content: 'ok' }),
      event('RUN_FINISHED', { threadId: 't', runId: 'r' }),
    ];
    expect(stream.map((item) => spans.admit(item))).toEqual([true, true, true, true, false, true]);
  });
});
