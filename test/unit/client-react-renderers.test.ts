/**
 * The logic of the client module's React renderers (lib/client/react), without a DOM: the answer
 * form an interrupt's `responseSchema` gives (buttons for an enum or const branches, text fields
 * for free strings), and the tool status derived from CopilotKit's status, the tool result the
 * adapter sends (docs/protocol.md §4.7: a failed tool's result is canonical JSON with an `error`)
 * and a pending interrupt naming the tool. The browser tests (test/browser/copilotkit/) show them.
 */
import { describe, expect, it } from 'vitest';
import { answerForm } from '../../lib/client/react/answer-options.js';
import { isWaiting, markWaiting } from '../../lib/client/react/pending-tools.js';
import { toolFailure, toolStatus } from '../../lib/client/react/tool-status.js';
import { choiceSchema, responseSchemaFor } from '../../lib/core/interrupts/interrupt-object.js';

describe('answerForm', () => {
  it("a permission's decision enum: one button per value, no text field", () => {
    const form = answerForm(responseSchemaFor({ kind: 'permission', toolName: 'run_shell' } as never));
    expect(form.textFields).toEqual([]);
    expect(form.options.map((option) => option.label)).toContain('Allow once');
    expect(form.options.find((option) => option.label === 'Allow once')?.payload).toEqual({ decision: 'allow_once' });
  });

  it('a question with options and free text: a button per option and a free-text field', () => {
    const schema = choiceSchema(
      [
        { id: 'a', title: 'Plan A' },
        { id: 'b', title: 'Plan B' },
      ] as never,
      true,
    );
    const form = answerForm(schema);
    expect(form.options).toEqual([
      { label: 'Plan A', payload: { selectedId: 'a' } },
      { label: 'Plan B', payload: { selectedId: 'b' } },
    ]);
    expect(form.textFields).toEqual([{ field: 'freeText', label: 'Free text', minLength: 1 }]);
  });

  it('a question without free text has no text field; one without options has only the text field', () => {
    expect(answerForm(choiceSchema([{ id: 'a', title: 'A' }] as never, false)).textFields).toEqual([]);
    expect(answerForm(choiceSchema([], false))).toEqual({ options: [], textFields: [{ field: 'freeText', label: 'Free text', minLength: 1 }] });
  });

  it('a resource selection: a value field and a free-text field', () => {
    const schema = {
      oneOf: [
        { type: 'object', required: ['value'], properties: { value: { type: 'string', minLength: 1 }, label: { type: 'string' } } },
        { type: 'object', required: ['freeText'], properties: { freeText: { type: 'string', minLength: 1 } } },
      ],
    };
    expect(answerForm(schema).textFields.map((field) => field.field)).toEqual(['value', 'freeText']);
  });

  it('nothing it can read: no options, no fields', () => {
    expect(answerForm(undefined)).toEqual({ options: [], textFields: [] });
    expect(answerForm({ type: 'object' })).toEqual({ options: [], textFields: [] });
  });
});

describe('toolStatus', () => {
  it("a failed tool's result (canonical JSON with an error) is failed, whatever CopilotKit says", () => {
    expect(toolFailure('{"error":"lint failed","line":3}')).toBe('lint failed');
    expect(toolStatus('complete', '{"error":"lint failed","line":3}', false)).toBe('failed');
    expect(toolStatus('complete', '{"error":{"message":"denied"}}', false)).toBe('failed');
    expect(toolStatus('complete', '{"isError":true,"message":"boom"}', false)).toBe('failed');
  });

  it('a result without an error is done; text, even "error: …", is not parsed as a failure', () => {
    expect(toolStatus('complete', 'resource "alicloud_vpc" "main" {}', false)).toBe('done');
    expect(toolStatus('complete', '{"decision":"allow_once"}', false)).toBe('done');
    expect(toolStatus('complete', 'error: not JSON', false)).toBe('done');
    expect(toolStatus('complete', '{not json', false)).toBe('done');
  });

  it('a tool a pending interrupt names is waiting; without one it is running until complete', () => {
    expect(toolStatus('executing', undefined, true)).toBe('waiting');
    expect(toolStatus('inProgress', undefined, false)).toBe('running');
    expect(toolStatus('executing', undefined, false)).toBe('running');
  });

  it('markWaiting is counted (a StrictMode double mount) and its undo is idempotent', () => {
    const first = markWaiting('tool-1');
    const second = markWaiting('tool-1');
    expect(isWaiting('tool-1')).toBe(true);
    first();
    first();
    expect(isWaiting('tool-1')).toBe(true);
    second();
    expect(isWaiting('tool-1')).toBe(false);
  });
});
