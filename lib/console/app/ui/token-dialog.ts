/**
 * Asks for the bearer token when the adapter wants one (docs/architecture.md §4.7): a modal dialog
 * that cannot be dismissed — Esc does nothing, and should the browser close it anyway it opens
 * again — because nothing on the page works without a token. The token is kept in session storage
 * only. It is checked by the first call that needs it, with nothing else sent: a refused one
 * brings the dialog back, saying so, and what was refused is sent again once the person connects
 * (console-app.ts). No separate check is sent, since the adapter has no route a right token
 * answers with success without starting a run, and a refusal would stay in the browser's log.
 */
import { saveToken } from '../connection/session-token.js';
import { el } from '../dom.js';

export class TokenDialog {
  readonly root: HTMLDialogElement;
  private readonly input: HTMLInputElement;
  private readonly error: HTMLElement;
  private connected = false;

  constructor(private readonly onConnected: () => void) {
    this.input = el('input', { id: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'token-error token-intro' });
    this.error = el('p', { id: 'token-error', class: 'field-error', role: 'alert' });
    const intro = el('p', {
      id: 'token-intro',
      text: 'This adapter needs a bearer token. It stays in this browser tab only and is never put in a URL. The adapter checks it with your first message.',
    });
    const form = el(
      'form',
      { method: 'dialog', novalidate: true },
      el('h2', { id: 'token-heading', text: 'Connect to the adapter' }),
      intro,
      el('label', { for: 'token', text: 'Bearer token' }),
      this.input,
      this.error,
      el('button', { type: 'submit', class: 'primary', text: 'Connect' }),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.root = el('dialog', { class: 'token-dialog', 'aria-labelledby': 'token-heading' }, form);
    // Esc would leave a page that looks ready and fails its first message.
    this.root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') event.preventDefault();
    });
    this.root.addEventListener('cancel', (event) => event.preventDefault());
    this.root.addEventListener('close', () => {
      if (!this.connected) this.root.showModal();
    });
  }

  open(reason?: string): void {
    this.connected = false;
    this.error.textContent = reason ?? '';
    this.input.value = '';
    if (!this.root.open) this.root.showModal();
    this.input.focus();
  }

  private submit(): void {
    const token = this.input.value.trim();
    if (!token) {
      this.error.textContent = 'Enter the token first.';
      this.input.focus();
      return;
    }
    saveToken(token);
    this.error.textContent = '';
    this.connected = true;
    this.root.close();
    this.onConnected();
  }
}
