/**
 * The event factory (docs/protocol.md §4): integer timestamps, no null or undefined optional
 * fields outside a CUSTOM value, and — checked by `npm run typecheck` through the
 * `@ts-expect-error` lines — exactly the fields @ag-ui/core 1.0 defines for each event type.
 */
import { describe, expect, it } from 'vitest';
import { eventFactory } from '../../lib/core/translate/events.js';
import { assertValidAgUiEvent } from '../support/agui-oracle.js';

describe('eventFactory', () => {
  const make = eventFactory(() => 1_700_000_000_123.9);

  it.each([
    ['RUN_STARTED without a parent run', make('RUN_STARTED', { threadId: 't', runId: 'r', parentRunId: undefined }), { type: 'RUN_STARTED', threadId: 't', runId: 'r' }],
    ['RUN_ERROR without usage', make('RUN_ERROR', { code: 'CANCELLED', message: 'Cancelled.', usage: undefined }), { type: 'RUN_ERROR', code: 'CANCELLED', message: 'Cancelled.' }],
    [
      'TOOL_CALL_START without a parent message',
      make('TOOL_CALL_START', { toolCallId: 'c', toolCallName: 'shell', parentMessageId: undefined }),
      { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'shell' },
    ],
    [
      'CUSTOM keeps nulls inside its value',
      make('CUSTOM', { name: 'iac-code.session.v1', value: { taskId: null, sessionId: null } }),
      { type: 'CUSTOM', name: 'iac-code.session.v1', value: { taskId: null, sessionId: null } },
    ],
  ])('builds %s: integer timestamp, absent optional fields omitted', (_case, event, expected) => {
    // Assert
    expect(event).toStrictEqual({ ...expected, timestamp: 1_700_000_000_123 });
    expect(() => assertValidAgUiEvent(event)).not.toThrow();
  });

  it('refuses at type-check time what AG-UI 1.0 does not define; the oracle refuses it at run time', () => {
    // @ts-expect-error RUN_ERROR has no threadId in AG-UI 1.0
    const withThread = make('RUN_ERROR', { threadId: 't', message: 'm' });
    // @ts-expect-error a streamed text message's role is never 'tool'
    make('TEXT_MESSAGE_START', { messageId: 'm', role: 'tool' });
    // @ts-expect-error TOOL_CALL_START needs toolCallName
    make('TOOL_CALL_START', { toolCallId: 'c' });
    // @ts-expect-error an interrupt outcome carries interrupts, not a single interrupt
    make('RUN_FINISHED', { threadId: 't', runId: 'r', outcome: { type: 'interrupt', interrupt: { id: 'i', reason: 'x' } } });
    // @ts-expect-error STATE_SNAPSHOT is not an event the adapter emits
    make('STATE_SNAPSHOT', { snapshot: {} });

    expect(() => assertValidAgUiEvent(withThread)).toThrow('Unrecognized key: "threadId"');
  });
});
