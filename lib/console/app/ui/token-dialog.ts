/**
 * Asks for the bearer token when the adapter wants one (docs/architecture.md §4.7): a modal dialog, checked against
 * the adapter before it is kept (connection/token-check.ts), kept in session storage only. A wrong
 * token or an adapter that cannot be reached is said in the dialog, next to the field.
 */

import { saveToken } from '../connection/session-token.js';
import { checkToken } from '../connection/token-check.js';
import { el } from '../dom.js';

export class TokenDialog {
  readonly root: HTMLDialogElement;
  private readonly input: HTMLInputElement;
  private readonly error: HTMLElement;
  private readonly connect: HTMLButtonElement;
  private readonly intro: HTMLElement;

  constructor(private readonly onConnected: () => void) {
    this.input = el('input', { id: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'token-error token-intro' });
    this.error = el('p', { id: 'token-error', class: 'field-error', role: 'alert' });
    this.intro = el('p', { id: 'token-intro', text: 'This adapter needs a bearer token. It stays in this browser tab only and is never put in a URL.' });
    this.connect = el('button', { type: 'submit', class: 'primary', text: 'Connect' });
    const form = el(
      'form',
      { method: 'dialog', novalidate: true },
      el('h2', { id: 'token-heading', text: 'Connect to the adapter' }),
      this.intro,
      el('label', { for: 'token', text: 'Bearer token' }),
      this.input,
      this.error,
      this.connect,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    this.root = el('dialog', { class: 'token-dialog', 'aria-labelledby': 'token-heading' }, form);
    // The dialog cannot be dismissed without a token: nothing works without one.
    this.root.addEventListener('cancel', (event) => event.preventDefault());
  }

  open(reason?: string): void {
    this.error.textContent = reason ?? '';
    this.input.value = '';
    if (!this.root.open) this.root.showModal();
    this.input.focus();
  }

  private async submit(): Promise<void> {
    const token = this.input.value.trim();
    if (!token) {
      this.error.textContent = 'Enter the token first.';
      this.input.focus();
      return;
    }
    this.connect.disabled = true;
    this.error.textContent = 'Checking…';
    const failure = await checkToken(token);
    this.connect.disabled = false;
    if (failure) {
      this.error.textContent = failure.kind === 'unauthorized' ? `The adapter rejected this token (${failure.code}). Check it and try again.` : failure.message;
      this.input.select();
      return;
    }
    saveToken(token);
    this.error.textContent = '';
    this.root.close();
    this.onConnected();
  }
}
