/**
 * The strict AG-UI oracle bites (docs/protocol.md §4): a key @ag-ui/core 1.0 does not define, at
 * any depth, fails it — exactly where the official client's enforce stage would strip the key and
 * warn — while opaque values (CUSTOM value, metadata, activity content) stay open.
 */
import { enforceEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertValidAgUiEvent } from '../support/agui-oracle.js';

type Event = Record<string, unknown>;

const interrupt = (extra: Record<string, unknown> = {}) => ({ id: 'i-1', reason: 'tool_call', message: 'Allow?', responseSchema: { type: 'object' }, ...extra });
const runFinished = (outcome: unknown, extra: Record<string, unknown> = {}): Event => ({ type: 'RUN_FINISHED', timestamp: 1, threadId: 't', runId: 'r', outcome, ...extra });

/** What the official client prints for an event, with its warnings switched on. */
async function clientWarnings(event: Event): Promise<string[]> {
  vi.stubEnv('SUPPRESS_TRANSFORMATION_WARNINGS', undefined);
  const warnings: string[] = [];
  vi.spyOn(console, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  await lastValueFrom(from([event as never]).pipe(enforceEvents(), toArray()));
  return warnings;
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('the strict AG-UI oracle', () => {
  it('rejects a RUN_ERROR carrying threadId, which the loose @ag-ui/core schema lets through', () => {
    // Arrange
    const event = { type: 'RUN_ERROR', timestamp: 1, threadId: 't', message: 'The A2A execution failed.', code: 'A2A_EXECUTION_FAILED' };

    // Act
    const check = () => assertValidAgUiEvent(event);

    // Assert
    expect(EventSchemas.safeParse(event).success).toBe(true);
    expect(check).toThrow(/RUN_ERROR[\s\S]*threadId/);
  });

  it.each<[string, Event, string]>([
    ['RUN_ERROR with runId', { type: 'RUN_ERROR', timestamp: 1, runId: 'r', message: 'm' }, '/runId'],
    ['an interrupt with an undeclared key', runFinished({ type: 'interrupt', interrupts: [interrupt({ deadline: 'never' })] }), '/outcome/interrupts/0/deadline'],
    ['a success outcome carrying interrupts', runFinished({ type: 'success', interrupts: [interrupt()] }), '/outcome/interrupts'],
    ['a usage entry with an undeclared counter', runFinished({ type: 'success' }, { usage: [{ model: 'm', inputTokens: 1, costUsd: 2 }] }), '/usage/0/costUsd'],
    ['a TEXT_MESSAGE_CONTENT with an undeclared key', { type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: 'm', delta: 'x', threadId: 't' }, '/threadId'],
  ])('rejects %s, where the official client warns "Removed unrecognised material"', async (_case, event, path) => {
    // Act
    const check = () => assertValidAgUiEvent(event);
    const warnings = await clientWarnings(event);

    // Assert
    expect(check).toThrow(`Unrecognized key: "${path.split('/').at(-1)}"`);
    expect(warnings).toEqual([expect.stringContaining(`Removed unrecognised material at '${path}'`)]);
  });

  it.each<[string, Event]>([
    ['a null optional field', { type: 'TOOL_CALL_START', timestamp: 1, toolCallId: 'c', toolCallName: 'shell', parentMessageId: null }],
    ['a fractional timestamp', { type: 'STEP_STARTED', timestamp: 1.5, stepName: 's' }],
    ['an empty interrupt list', runFinished({ type: 'interrupt', interrupts: [] })],
  ])('rejects %s', (_case, event) => {
    expect(() => assertValidAgUiEvent(event)).toThrow(/does not match @ag-ui\/core 1\.0/);
  });

  it.each<[string, Event]>([
    ['RUN_ERROR with code, message and usage', { type: 'RUN_ERROR', timestamp: 1, code: 'CANCELLED', message: 'm', usage: [{ provider: 'p', model: 'm', totalTokens: 3 }] }],
    [
      'an interrupt whose metadata has any keys and nulls',
      runFinished({ type: 'interrupt', interrupts: [interrupt({ toolCallId: 'c', metadata: { anything: null, deep: { x: 1 } } })] }),
    ],
    ['a CUSTOM value with any keys and nulls', { type: 'CUSTOM', timestamp: 1, name: 'iac-code.session.v1', value: { taskId: null, extra: { nested: true } } }],
    [
      'an ACTIVITY_SNAPSHOT with any content',
      { type: 'ACTIVITY_SNAPSHOT', timestamp: 1, messageId: 'a', activityType: 'x', content: { snapshot: { any: 'thing' } }, replace: true },
    ],
    ['a JSON Patch operation with an extra key (open in the spec)', { type: 'STATE_DELTA', timestamp: 1, delta: [{ op: 'add', path: '/a', value: 1, note: 'x' }] }],
  ])('accepts %s', async (_case, event) => {
    expect(() => assertValidAgUiEvent(event)).not.toThrow();
    expect(await clientWarnings(event)).toEqual([]);
  });
});
