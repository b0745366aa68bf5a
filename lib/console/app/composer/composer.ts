/**
 * The message box (docs/architecture.md §4.7): type and press Enter to send (Shift+Enter for a new line), attach
 * images with the picker or by dropping them anywhere on the box. Problems (limits, a message
 * while an answer is owed) are announced in the box's own live region; so is why a message waits
 * when Enter is pressed while it cannot be sent (a run going on) — the text stays in the box.
 */
import type { InputContent } from '@ag-ui/client';
import { el } from '../dom.js';
import { Attachments } from './attachments.js';
import { bodyProblem, IMAGE_TYPES } from './image-limits.js';

export interface Outgoing {
  content: string | InputContent[];
  text: string;
  previews: HTMLElement[];
}

export class Composer {
  readonly root: HTMLFormElement;
  readonly input: HTMLTextAreaElement;
  private readonly attachments: Attachments;
  private readonly problem: HTMLElement;
  private readonly send: HTMLButtonElement;
  private readonly picker: HTMLInputElement;
  /** Why sending waits, said when the person tries to send; undefined when it may be sent. */
  private blocked: string | undefined;

  constructor(private readonly onSend: (message: Outgoing) => void) {
    this.problem = el('p', { class: 'composer-problem', id: 'composer-problem', role: 'status', 'aria-live': 'polite' });
    this.attachments = new Attachments((problem) => this.say(problem));
    this.input = el('textarea', {
      id: 'message',
      rows: '3',
      placeholder: 'Message iac-code… (Enter sends, Shift+Enter for a new line)',
      'aria-describedby': 'composer-problem',
    });
    // The picker itself is not in the tab order: a real button opens it, with a visible focus ring.
    this.picker = el('input', { id: 'attach', type: 'file', accept: IMAGE_TYPES.join(','), multiple: true, class: 'visually-hidden', tabindex: '-1', 'aria-hidden': 'true' });
    this.send = el('button', { type: 'submit', class: 'primary', text: 'Send' });
    const attach = el('button', { type: 'button', class: 'secondary', text: 'Attach images', on: { click: () => this.picker.click() } });
    this.root = el(
      'form',
      { class: 'composer', 'aria-label': 'Message', novalidate: true },
      el('label', { for: 'message', class: 'visually-hidden', text: 'Message' }),
      this.input,
      this.attachments.root,
      el('div', { class: 'composer-actions' }, attach, this.picker, this.send),
      this.problem,
    );
    this.root.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    this.picker.addEventListener('change', () => {
      void this.attachments.add(this.picker.files ?? []).then(() => {
        this.picker.value = '';
      });
    });
    this.root.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.root.classList.add('dragging');
    });
    this.root.addEventListener('dragleave', () => this.root.classList.remove('dragging'));
    this.root.addEventListener('drop', (event) => {
      event.preventDefault();
      this.root.classList.remove('dragging');
      void this.attachments.add(event.dataTransfer?.files ?? []);
    });
  }

  /**
   * Whether a message may be sent now. `reason` says why not: shown at once when `show`, else only
   * when the person presses Enter. The box stays editable either way.
   */
  setEnabled(enabled: boolean, reason?: string, show = true): void {
    this.send.disabled = !enabled;
    this.blocked = enabled ? undefined : reason;
    // Why sending waits is guidance, not a mistake of the person's.
    if (enabled) {
      if (this.problem.dataset['tone'] === 'hint' && this.problem.dataset['blocked'] === 'true') this.say(undefined);
    } else if (reason && show) this.hint(reason, true);
  }

  fill(text: string): void {
    this.input.value = text;
    this.input.focus();
  }

  focus(): void {
    this.input.focus();
  }

  say(problem: string | undefined): void {
    this.problem.textContent = problem ?? '';
    delete this.problem.dataset['tone'];
    delete this.problem.dataset['blocked'];
  }

  /** A helpful line where problems are said, without a problem's colour. */
  hint(text: string, blocked = false): void {
    this.problem.textContent = text;
    this.problem.dataset['tone'] = 'hint';
    this.problem.dataset['blocked'] = String(blocked);
  }

  private submit(): void {
    if (this.send.disabled) {
      if (this.blocked) this.hint(this.blocked, true);
      return;
    }
    const text = this.input.value.trim();
    const images = this.attachments.facts;
    if (!text && images.length === 0) {
      this.say('Type a message first.');
      return;
    }
    const tooLarge = bodyProblem(text, images);
    if (tooLarge) {
      this.say(tooLarge);
      return;
    }
    const content: string | InputContent[] = images.length === 0 ? text : [...(text ? [{ type: 'text' as const, text }] : []), ...this.attachments.parts()];
    const outgoing = { content, text, previews: this.attachments.previews() };
    this.input.value = '';
    this.attachments.clear();
    this.say(undefined);
    this.onSend(outgoing);
  }
}
