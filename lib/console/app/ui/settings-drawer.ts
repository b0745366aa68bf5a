/**
 * The thread's settings in a drawer beside the conversation (docs/architecture.md §4.7), never over
 * it on a wide screen; on a phone it is a sheet over the lower part of the screen. Its button says
 * whether it is open; Esc or Close shuts it and gives the focus back to the button.
 */
import { el } from '../dom.js';

export class SettingsDrawer {
  readonly root: HTMLElement;
  readonly toggle: HTMLButtonElement;
  private readonly threadId: HTMLElement;

  constructor(form: HTMLElement, summary: HTMLElement) {
    this.threadId = el('code', { class: 'thread-id' });
    const close = el('button', { type: 'button', class: 'secondary', text: 'Close', on: { click: () => this.close() } });
    this.root = el(
      'aside',
      { id: 'thread-settings', class: 'settings-drawer', 'aria-labelledby': 'settings-heading', hidden: true },
      el('div', { class: 'drawer-head' }, el('h2', { id: 'settings-heading', text: 'Thread settings' }), close),
      el('p', { class: 'hint' }, 'Thread id: ', this.threadId),
      form,
    );
    this.root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !event.defaultPrevented) {
        event.preventDefault();
        this.close();
      }
    });
    this.toggle = el(
      'button',
      {
        type: 'button',
        class: 'settings-toggle',
        'aria-expanded': 'false',
        'aria-controls': 'thread-settings',
        on: { click: () => (this.isOpen ? this.close() : this.open()) },
      },
      'Settings',
      el('span', { class: 'settings-summary-wrap' }, ': ', summary),
    );
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  showThread(threadId: string): void {
    this.threadId.textContent = threadId;
  }

  open(): void {
    this.root.hidden = false;
    this.toggle.setAttribute('aria-expanded', 'true');
    this.root.querySelector<HTMLElement>('input:not(:disabled), select')?.focus();
  }

  close(): void {
    if (!this.isOpen) return;
    this.root.hidden = true;
    this.toggle.setAttribute('aria-expanded', 'false');
    this.toggle.focus();
  }
}
