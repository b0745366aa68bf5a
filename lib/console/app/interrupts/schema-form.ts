/**
 * Draws an AnswerModel (interrupts/schema-model.ts) as accessible controls and reports the payload
 * the person chose: buttons for an enum, option cards for picks, labelled inputs for forms, with a
 * field's mistake written beside it (aria-invalid + aria-describedby).
 */
import { el, uid } from '../dom.js';
import { type AnswerModel, type BranchModel, type Entered, type FieldModel, type Json, validate } from './schema-model.js';

export interface FormHooks {
  /** Extra lines for a pick (a candidate's summary, cost…). */
  details(payload: Record<string, Json>): string[];
  answer(payload: Json, label: string): void;
}

export function renderAnswer(model: AnswerModel, hooks: FormHooks): HTMLElement {
  switch (model.kind) {
    case 'buttons':
      return el(
        'div',
        { class: 'answer-buttons', role: 'group', 'aria-label': 'Answer' },
        ...model.options.map((option, index) =>
          el('button', {
            type: 'button',
            class: index === 0 ? 'primary' : 'secondary',
            'data-value': typeof option.value === 'string' ? option.value : JSON.stringify(option.value),
            text: option.label,
            on: { click: () => hooks.answer({ [model.property]: option.value }, option.label) },
          }),
        ),
      );
    case 'alternatives':
      return el('div', { class: 'answer-alternatives' }, ...model.branches.map((branch) => renderBranch(branch, hooks)));
    case 'form':
      return fieldsForm('Answer', model.fields, hooks);
    case 'json':
      return jsonForm(hooks);
  }
}

function renderBranch(branch: BranchModel, hooks: FormHooks): HTMLElement {
  if (branch.kind === 'form') return fieldsForm(branch.label, branch.fields, hooks);
  const details = hooks.details(branch.payload);
  return el(
    'button',
    { type: 'button', class: 'option-card', on: { click: () => hooks.answer(branch.payload, branch.label) } },
    el('span', { class: 'option-label', text: branch.label }),
    ...details.map((line) => el('span', { class: 'option-detail', text: line })),
  );
}

function fieldsForm(legend: string, fields: readonly FieldModel[], hooks: FormHooks): HTMLElement {
  const inputs = new Map<string, { input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; error: HTMLElement }>();
  const rows = fields.flatMap((field) => {
    if (field.kind === 'const') return [];
    const id = uid('field');
    const error = el('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (field.kind === 'boolean') input = el('input', { id, type: 'checkbox', name: field.name });
    else if (field.kind === 'number') input = el('input', { id, type: 'text', inputmode: 'decimal', name: field.name });
    else if (field.kind === 'select')
      input = el(
        'select',
        { id, name: field.name },
        el('option', { value: '', text: '—' }),
        ...field.options.map((option) => el('option', { value: JSON.stringify(option.value), text: option.label })),
      );
    else input = el('input', { id, type: 'text', name: field.name, autocomplete: 'off' });
    inputs.set(field.name, { input, error });
    const required = 'required' in field && field.required;
    return [el('div', { class: 'field' }, el('label', { for: id, text: `${field.label}${required ? '' : ' (optional)'}` }), input, error)];
  });
  const submit = el('button', { type: 'submit', class: 'primary', text: 'Send' });
  // A single field labelled like its branch needs no legend saying it again.
  const editable = fields.filter((field) => field.kind !== 'const');
  const sameWords = editable.length === 1 && editable[0]?.label === legend;
  const form = el('form', { class: 'branch-form', novalidate: true }, el('fieldset', {}, sameWords ? null : el('legend', { text: legend }), ...rows, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const entered: Entered = {};
    for (const [name, { input }] of inputs) entered[name] = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
    const result = validate(fields, entered);
    for (const [name, { input, error }] of inputs) {
      const message = result.ok ? undefined : result.errors[name];
      error.textContent = message ?? '';
      error.hidden = message === undefined;
      if (message) {
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', error.id);
      } else {
        input.removeAttribute('aria-invalid');
        input.removeAttribute('aria-describedby');
      }
    }
    if (!result.ok) {
      const first = [...inputs.values()].find(({ input }) => input.getAttribute('aria-invalid') === 'true');
      first?.input.focus();
      return;
    }
    const shown = Object.values(result.payload).filter((value) => typeof value === 'string');
    hooks.answer(result.payload, shown.join(' — ') || legend);
  });
  return form;
}

function jsonForm(hooks: FormHooks): HTMLElement {
  const id = uid('json');
  const input = el('textarea', { id, rows: '4', class: 'json-answer' });
  const error = el('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const form = el(
    'form',
    { class: 'branch-form', novalidate: true },
    el(
      'fieldset',
      {},
      el('legend', { text: 'Answer (JSON)' }),
      el('label', { for: id, text: 'Payload as JSON' }),
      input,
      error,
      el('button', { type: 'submit', class: 'primary', text: 'Send' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    try {
      hooks.answer(JSON.parse(input.value) as Json, 'JSON answer');
      error.hidden = true;
    } catch {
      error.textContent = 'This is not valid JSON.';
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', error.id);
      input.focus();
    }
  });
  return form;
}
