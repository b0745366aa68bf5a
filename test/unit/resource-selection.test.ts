/**
 * The cloud_resource_selection kind without I/O (lib/core/interrupts/resource-selection.ts;
 * docs/protocol.md §5.2, §5.3, §5.8, §7.13): its interrupt object, which answers are valid, what a
 * resume plan does with it (a cancel is delivered, a broken selector is refused before sending), and
 * the wire text with its fixed key order.
 */
import { describe, expect, it } from 'vitest';
import { answerDigest, isValidAnswer } from '../../lib/core/interrupts/answers.js';
import { toInterrupt } from '../../lib/core/interrupts/interrupt-object.js';
import { promptAnswer } from '../../lib/core/interrupts/prompt-answer.js';
import { RESOURCE_SELECTION_PREFIX, resourceSelectionText } from '../../lib/core/interrupts/resource-selection.js';
import { type Answer, planResume } from '../../lib/core/interrupts/resume-plan.js';
import type { ResumeEntry } from '../../lib/core/protocol/schemas.js';
import type { PendingInterrupt } from '../../lib/core/thread/document.js';

const ID = `resource-${'a'.repeat(32)}`;
const IDS = { taskId: 'task-1', contextId: 'agui-ctx' };

function selection(overrides: Record<string, unknown> = {}, selector: Record<string, unknown> = {}): PendingInterrupt {
  return {
    id: ID,
    input: {
      kind: 'cloud_resource_selection',
      inputId: ID,
      toolUseId: 'toolu-1',
      prompt: 'Pick a VPC',
      required: true,
      selector: { id: 'vpc.vpc', source: null, ...selector },
      ...overrides,
    },
    sideband: false,
  };
}

const resolved = (payload?: unknown): ResumeEntry => (payload === undefined ? { interruptId: ID, status: 'resolved' } : { interruptId: ID, status: 'resolved', payload });
const cancelled = (payload?: unknown): ResumeEntry => (payload === undefined ? { interruptId: ID, status: 'cancelled' } : { interruptId: ID, status: 'cancelled', payload });

function plan(entry: ResumeEntry, pending = selection()) {
  return planResume({ entries: [entry], pending: [pending], knownBefore: new Set([ID]), applied: new Map() });
}

describe('the resource selection interrupt', () => {
  it('shows the prompt without option lines, else the fallback in the input language, and no standard options', () => {
    const interrupt = toInterrupt(selection());
    expect(interrupt).toMatchObject({ id: ID, reason: 'input_required', message: 'Pick a VPC', toolCallId: 'toolu-1' });
    expect(interrupt.metadata).toMatchObject({ schemaVersion: 1, standardOptions: [], selector: { id: 'vpc.vpc' } });
    expect(toInterrupt(selection({ prompt: undefined, language: 'de' })).message).toBe('Eingabe erforderlich');
  });

  it.each<[string, ResumeEntry, boolean]>([
    ['a value', resolved({ value: 'vpc-1' }), true],
    ['a value and a label', resolved({ value: 'vpc-1', label: 'main' }), true],
    ['a value and an empty label', resolved({ value: 'vpc-1', label: '' }), true],
    ['free text', resolved({ freeText: 'vpc-2' }), true],
    ['an empty value', resolved({ value: '' }), false],
    ['empty free text', resolved({ freeText: '' }), false],
    ['a value and free text', resolved({ value: 'a', freeText: 'b' }), false],
    ['an unknown key', resolved({ value: 'a', selectedId: 'a' }), false],
    ['a number', resolved({ value: 7 }), false],
    ['no payload', resolved(), false],
    ['a cancel without payload', cancelled(), true],
    ['a cancel with null', cancelled(null), true],
    ['a cancel with optionsEmpty', cancelled({ optionsEmpty: false }), true],
    ['a cancel with a non-boolean optionsEmpty', cancelled({ optionsEmpty: 1 }), false],
    ['a cancel with another key', cancelled({ optionsEmpty: true, why: 'x' }), false],
    ['a cancel with an empty object', cancelled({}), false],
  ])('judges %s', (_case, entry, valid) => {
    expect(isValidAnswer(selection(), entry)).toBe(valid);
  });
});

describe('a resume answering a resource selection', () => {
  it('delivers a cancellation instead of cancelling the task', () => {
    const result = plan(cancelled({ optionsEmpty: true }));
    expect(result.kind).toBe('deliver');
  });

  it.each<[string, PendingInterrupt]>([
    ['no selector', selection({ selector: undefined })],
    ['a selector without id', selection({}, { id: '' })],
    ['no toolUseId', selection({ toolUseId: undefined })],
    ['a source that is a string', selection({}, { source: 'redis.instance' })],
    ['a source that is a list', selection({}, { source: [] })],
  ])('is refused with A2A_PROTOCOL_ERROR before sending when the input has %s', (_case, pending) => {
    expect(plan(resolved({ value: 'vpc-1' }), pending)).toEqual({ kind: 'fail', code: 'A2A_PROTOCOL_ERROR', key: 'a2aProtocolError' });
  });
});

describe('the selection text', () => {
  function answer(entry: ResumeEntry, pending = selection()): Answer {
    return { pending, entry, digest: answerDigest(entry), text: undefined };
  }

  it('writes the prefix and compact JSON in the kernel key order, with the source last when the selector has one', () => {
    const source = { selector_id: 'redis.instance', value: 'r-1' };
    const text = resourceSelectionText(selection({}, { id: 'redis.url', source }), resolved({ value: 'redis://x', label: 'primary' }), IDS);
    expect(text.startsWith(RESOURCE_SELECTION_PREFIX)).toBe(true);
    expect(Object.keys(JSON.parse(text.slice(RESOURCE_SELECTION_PREFIX.length)))).toEqual([
      'schemaVersion',
      'kind',
      'status',
      'requestTaskId',
      'contextId',
      'inputId',
      'toolUseId',
      'selectorId',
      'value',
      'label',
      'source',
    ]);
    expect(text).toBe(
      `IAC_CODE_RESOURCE_SELECTION:{"schemaVersion":1,"kind":"cloud_resource_selection","status":"selected","requestTaskId":"task-1","contextId":"agui-ctx","inputId":"${ID}","toolUseId":"toolu-1","selectorId":"redis.url","value":"redis://x","label":"primary","source":{"selector_id":"redis.instance","value":"r-1"}}`,
    );
  });

  it('writes a cancellation with optionsEmpty only when the payload has it', () => {
    const head = `IAC_CODE_RESOURCE_SELECTION:{"schemaVersion":1,"kind":"cloud_resource_selection","status":"canceled","requestTaskId":"task-1","contextId":"agui-ctx","inputId":"${ID}","toolUseId":"toolu-1"`;
    expect(resourceSelectionText(selection(), cancelled({ optionsEmpty: false }), IDS)).toBe(`${head},"optionsEmpty":false}`);
    expect(resourceSelectionText(selection(), cancelled(), IDS)).toBe(`${head}}`);
  });

  it('shows the label (or value, or free text) as the tool result of a selection, and nothing for a cancellation', () => {
    expect(promptAnswer(answer(resolved({ value: 'vpc-1', label: 'main' })), IDS).toolResult).toBe('main');
    expect(promptAnswer(answer(resolved({ value: 'vpc-1' })), IDS).toolResult).toBe('vpc-1');
    expect(promptAnswer(answer(resolved({ freeText: 'vpc-9' })), IDS).toolResult).toBe('vpc-9');
    expect(promptAnswer(answer(cancelled()), IDS).toolResult).toBeUndefined();
  });
});
