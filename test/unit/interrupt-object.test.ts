import { describe, expect, it } from 'vitest';
import { answerText, isValidAnswer, permissionAnswerPart } from '../../lib/core/interrupts/answers.js';
import { requiredInputs } from '../../lib/core/interrupts/inputs.js';
import { toInterrupt } from '../../lib/core/interrupts/interrupt-object.js';
import { standardOptions } from '../../lib/core/interrupts/options.js';
import type { PendingInterrupt } from '../../lib/core/thread/document.js';

function pending(input: Record<string, unknown>, id = 'input-1'): PendingInterrupt {
  return { id, input, sideband: false };
}

describe('interrupt objects (docs/protocol.md §5.2)', () => {
  it('fall back to the input language when there is no prompt', () => {
    expect(toInterrupt(pending({ kind: 'permission', language: 'zh-CN' })).message).toBe('需要权限');
    expect(toInterrupt(pending({ kind: 'permission', title: 'Delete the stack.' })).message).toBe('Delete the stack.');
    expect(toInterrupt(pending({ kind: 'ask_user_question', language: 'ja-JP' })).message).toBe('入力が必要です');
    expect(toInterrupt(pending({ kind: 'input_required', language: 'xx' })).message).toBe('Input required');
  });

  it('treat unknown kinds as generic input: free text only when there are no options', () => {
    const generic = toInterrupt(pending({ kind: 'something_new', prompt: 'Say more' }));
    expect(generic).toMatchObject({ reason: 'input_required', message: 'Say more', responseSchema: { oneOf: [{ required: ['freeText'] }] } });
    expect(generic).not.toHaveProperty('toolCallId');
    const withOptions = toInterrupt(pending({ kind: 'something_new', options: ['x', 'y'] }));
    expect((withOptions['responseSchema'] as { oneOf: unknown[] }).oneOf).toHaveLength(2);
  });

  it('derive standard option ids and titles, de-duplicating ids', () => {
    expect(
      standardOptions([{ id: 'a', label: 'A' }, { candidate_index: 3, name: 'Three' }, { title: 'T' }, 'plain', '', { id: 'a' }, { id: 'a', label: 'again' }]).map(
        ({ id, title }) => ({ id, title }),
      ),
    ).toEqual([
      { id: 'a', title: 'A' },
      { id: '3', title: 'Three' },
      { id: '2', title: 'T' },
      { id: 'plain', title: 'plain' },
      { id: 'option-5', title: 'option-5' },
      { id: 'a-2', title: 'a-2' },
      { id: 'a-3', title: 'again' },
    ]);
  });
});

describe('required inputs (docs/protocol.md §5.1)', () => {
  it('take input and pendingPermissions, only required ones, de-duplicated, marking sideband', () => {
    const p1 = { kind: 'permission', inputId: 'permission-1', required: true };
    const p2 = { kind: 'permission', inputId: 'permission-2', required: true };
    const inputs = requiredInputs({ input: p1, pendingPermissions: [p1, p2, { inputId: 'x', required: false }] });
    expect(inputs.map((input) => [input.id, input.sideband])).toEqual([
      ['permission-1', true],
      ['permission-2', true],
    ]);
    expect(requiredInputs({ input: { ...p1, scope: 'candidate', subPipelineId: 's' } })[0]?.sideband).toBe(true);
    expect(requiredInputs({ input: p1 })[0]?.sideband).toBe(false);
    expect(requiredInputs({ input: { kind: 'permission', required: true } })[0]?.id).toMatch(/^input-[0-9a-f]{32}$/);
  });

  it('keep only the allow-listed fields', () => {
    const [input] = requiredInputs({ input: { kind: 'permission', inputId: 'p', required: true, prompt: 'ok', kernelTrace: 'x', apiKey: 'secret' } });
    expect(input?.input).toEqual({ kind: 'permission', inputId: 'p', required: true, prompt: 'ok' });
  });
});

describe('answers (docs/protocol.md §5.3)', () => {
  const permission = pending({ kind: 'permission', toolUseId: 42 }, 'permission-1');
  const question = pending({
    kind: 'ask_user_question',
    options: [{ id: 'plan-a', label: 'Plan A' }, { id: 'plan-b', name: 'Plan B name' }, { id: 'plan-c' }],
    allowFreeText: true,
  });

  it('validate permissions, cancelled meaning deny', () => {
    expect(isValidAnswer(permission, { interruptId: 'permission-1', status: 'resolved', payload: { decision: 'allow_once' } })).toBe(true);
    expect(isValidAnswer(permission, { interruptId: 'permission-1', status: 'resolved', payload: { decision: 'allow_always' } })).toBe(false);
    expect(isValidAnswer(permission, { interruptId: 'permission-1', status: 'resolved', payload: { decision: 'deny', extra: 1 } })).toBe(false);
    expect(isValidAnswer(permission, { interruptId: 'permission-1', status: 'cancelled' })).toBe(true);
    expect(permissionAnswerPart(permission, 'task-1', { interruptId: 'permission-1', status: 'cancelled' })).toEqual({
      data: { schemaVersion: 1, kind: 'permission', requestTaskId: 'task-1', inputId: 'permission-1', toolUseId: '42', decision: 'deny' },
      mediaType: 'application/json',
    });
  });

  it('turn question answers into text: free text, label, name, id', () => {
    expect(answerText(question, { freeText: 'mine' })).toBe('mine');
    expect(answerText(question, { free_text: 'alias' })).toBe('alias');
    expect(answerText(question, { selectedId: 'plan-a' })).toBe('Plan A');
    expect(answerText(question, { selected_id: 'plan-b' })).toBe('Plan B name');
    expect(answerText(question, { selectedId: 'plan-c' })).toBe('plan-c');
    expect(answerText(question, { selectedId: 'unknown' })).toBe('unknown');
    expect(answerText(question, {})).toBeUndefined();
  });
});
