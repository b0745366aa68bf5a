/**
 * Pending interrupts as forms (docs/protocol.md §5): one card per interrupt with its message, the
 * facts its metadata gives (tool, target, purpose…; a resource selection's selector), the form
 * generated from its responseSchema, and — where it means something — a way to cancel it, worded
 * by what cancelling does for that kind (interrupt-kinds.ts). Every pending interrupt must be answered in one resume, so answers are
 * collected and sent once the last one is given. A rejected resume (RESUME_PAYLOAD_INVALID and
 * friends) is shown here, where the answer was given, and the forms stay usable.
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/client';
import type { Failure } from '../../../client/failures.js';
import { el } from '../dom.js';
import { factsOf, messageWithoutOptions } from './interrupt-facts.js';
import { wordsFor } from './interrupt-kinds.js';
import { renderAnswer } from './schema-form.js';
import { answerModel, humanize, type Json } from './schema-model.js';

/** Fields of an option already shown as its label. */
const OPTION_NAME_FIELDS = new Set(['id', 'label', 'name', 'title', 'candidate_index']);
/** Fields of an option that are its description: shown as they are, without their name. */
const OPTION_PROSE_FIELDS = new Set(['description', 'summary']);

type Metadata = Record<string, unknown>;

function primitive(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function standardOptions(metadata: Metadata): Array<{ id: string; title: string }> {
  const options = metadata['standardOptions'];
  return Array.isArray(options) ? (options as Array<{ id: string; title: string }>) : [];
}

/**
 * Titles for option ids (from the adapter's standard options), prompts for fields (`freeText` →
 * the kernel's `freeTextPrompt`), then the console's own words for the kind.
 */
function labellerFor(metadata: Metadata, words: Record<string, string>): (value: string) => string | undefined {
  return (value) => {
    const option = standardOptions(metadata).find((candidate) => candidate.id === value);
    if (option) return option.title;
    const prompt = metadata[`${value}Prompt`];
    return typeof prompt === 'string' && prompt ? prompt : words[value];
  };
}

/** A pick's extra lines: the matching raw option's other fields (summary, cost…). */
function detailsFor(metadata: Metadata): (payload: Record<string, Json>) => string[] {
  return (payload) => {
    const chosen = Object.values(payload)[0];
    const index = standardOptions(metadata).findIndex((option) => option.id === chosen);
    const raw = Array.isArray(metadata['options']) ? (metadata['options'][index] as unknown) : undefined;
    if (typeof raw !== 'object' || raw === null) return [];
    return Object.entries(raw as Record<string, unknown>)
      .filter(([key, value]) => !OPTION_NAME_FIELDS.has(key) && primitive(value))
      .map(([key, value]) => (OPTION_PROSE_FIELDS.has(key) ? String(value) : `${humanize(key)}: ${value}`));
  };
}

export class InterruptPanel {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly status: HTMLElement;
  private readonly error: HTMLElement;
  private answers = new Map<string, { entry: ResumeEntry; said: string }>();
  private interrupts: Interrupt[] = [];

  /** `said`: the answers in words, as the transcript keeps them. */
  constructor(private readonly onResume: (entries: ResumeEntry[], said: string) => void) {
    this.list = el('div', { class: 'interrupt-list' });
    this.status = el('p', { class: 'interrupt-status', 'aria-live': 'polite' });
    this.error = el('div', { class: 'interrupt-error', role: 'alert', hidden: true });
    this.root = el(
      'section',
      { class: 'interrupts', 'aria-labelledby': 'interrupts-heading', hidden: true },
      el('h2', { id: 'interrupts-heading', text: 'Needs your answer' }),
      this.error,
      this.list,
      this.status,
    );
  }

  get pending(): readonly Interrupt[] {
    return this.interrupts;
  }

  show(interrupts: readonly Interrupt[]): void {
    this.interrupts = [...interrupts];
    this.answers = new Map();
    this.error.hidden = true;
    this.root.hidden = interrupts.length === 0;
    this.list.replaceChildren(...interrupts.map((interrupt) => this.card(interrupt)));
    this.updateStatus();
    this.focusSafely();
  }

  /**
   * The first card takes the focus, so the answer is near at hand — on the safe answer where its
   * kind has one (a permission's Deny), else on its heading: a stray Enter never approves or picks.
   */
  private focusSafely(): void {
    const card = this.list.querySelector<HTMLElement>('.interrupt-card');
    if (!card) return;
    const safe = card.dataset['safeAnswer'];
    const target = (safe ? card.querySelector<HTMLElement>(`button[data-value="${CSS.escape(safe)}"]`) : null) ?? card.querySelector<HTMLElement>('h3');
    target?.focus();
  }

  clear(): void {
    this.show([]);
  }

  setBusy(busy: boolean, message = 'Sending your answer…'): void {
    for (const control of this.root.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input, select, textarea')) control.disabled = busy;
    if (busy) this.status.textContent = message;
    else this.updateStatus();
  }

  /** A resume the adapter refused: the interrupts are still pending, so the answers can be given again. */
  showFailure(failure: Failure): void {
    this.setBusy(false);
    this.answers = new Map();
    this.error.replaceChildren(el('p', {}, el('strong', { text: failure.message }), ' ', el('code', { class: 'error-code', text: failure.code })));
    this.error.hidden = false;
    this.updateStatus();
  }

  private card(interrupt: Interrupt): HTMLElement {
    const metadata: Metadata = (interrupt.metadata as Metadata | undefined) ?? {};
    const words = wordsFor(interrupt.reason, metadata['kind']);
    const facts = factsOf(metadata);
    const chosen = el('p', { class: 'chosen', hidden: true });
    const form = renderAnswer(answerModel(interrupt.responseSchema, labellerFor(metadata, words.labels)), {
      details: detailsFor(metadata),
      answer: (payload, label) => {
        chosen.textContent = `Your answer: ${label}`;
        chosen.hidden = false;
        this.record({ interruptId: interrupt.id, status: 'resolved', payload }, label);
      },
    });
    const cancel = words.cancel
      ? el(
          'p',
          { class: 'interrupt-cancel' },
          el('button', {
            type: 'button',
            class: 'link',
            text: words.cancel.label,
            on: {
              click: () => {
                chosen.textContent = `Your answer: ${words.cancel?.label.toLowerCase()}`;
                chosen.hidden = false;
                this.record({ interruptId: interrupt.id, status: 'cancelled' }, words.cancel?.label ?? 'Cancelled');
              },
            },
          }),
          ' ',
          el('span', { class: 'hint', text: words.cancel.hint }),
        )
      : null;
    return el(
      'article',
      {
        class: 'interrupt-card',
        'data-interrupt-id': interrupt.id,
        'data-reason': interrupt.reason,
        'data-kind': String(metadata['kind'] ?? ''),
        'data-safe-answer': words.safeAnswer,
        'aria-label': words.title,
      },
      el('h3', { text: words.title, tabindex: '-1' }),
      el('p', { class: 'interrupt-message', text: messageWithoutOptions(interrupt.message ?? '', standardOptions(metadata)) }),
      facts.length > 0 ? el('dl', { class: 'facts' }, ...facts.flatMap(([term, value]) => [el('dt', { text: term }), el('dd', { text: value })])) : null,
      form,
      chosen,
      cancel,
    );
  }

  private record(entry: ResumeEntry, label: string): void {
    const interrupt = this.interrupts.find((candidate) => candidate.id === entry.interruptId);
    const title = wordsFor(interrupt?.reason ?? '', (interrupt?.metadata as Metadata | undefined)?.['kind']).title;
    this.answers.set(entry.interruptId, { entry, said: this.interrupts.length > 1 ? `${title}: ${label}` : label });
    this.updateStatus();
    if (this.interrupts.every((interrupt) => this.answers.has(interrupt.id))) {
      const given = this.interrupts.map((interrupt) => this.answers.get(interrupt.id) as { entry: ResumeEntry; said: string });
      this.onResume(
        given.map((answer) => answer.entry),
        given.map((answer) => answer.said).join('\n'),
      );
    }
  }

  private updateStatus(): void {
    const left = this.interrupts.length - this.answers.size;
    this.status.textContent = this.interrupts.length > 1 && left > 0 ? `${left} of ${this.interrupts.length} still to answer; all are sent together.` : '';
  }
}
