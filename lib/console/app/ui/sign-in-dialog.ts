/**
 * Asks the person to sign in with the identity provider (docs/architecture.md §4.7): a modal Esc
 * does not dismiss — nothing on the page works signed out — with one button that goes to the
 * provider's own sign-in page and comes back to the console.
 */
import { el } from '../dom.js';

export class SignInDialog {
  readonly root: HTMLDialogElement;
  private readonly reason: HTMLElement;
  private readonly button: HTMLButtonElement;
  private allowedToClose = false;

  constructor(provider: string, onSignIn: () => void) {
    this.reason = el('p', { id: 'sign-in-reason', class: 'field-error', role: 'alert' });
    this.button = el('button', { type: 'button', class: 'primary', text: `Sign in with ${provider}`, on: { click: () => onSignIn() } });
    this.root = el(
      'dialog',
      { class: 'token-dialog sign-in-dialog', 'aria-labelledby': 'sign-in-heading', 'aria-describedby': 'sign-in-reason sign-in-intro' },
      el('h2', { id: 'sign-in-heading', text: 'Sign in' }),
      el('p', { id: 'sign-in-intro', text: `This adapter knows people by their sign-in at ${provider}. You see only your own threads.` }),
      this.reason,
      this.button,
    );
    this.root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') event.preventDefault();
    });
    this.root.addEventListener('cancel', (event) => event.preventDefault());
    this.root.addEventListener('close', () => {
      if (!this.allowedToClose) this.root.showModal();
    });
  }

  open(reason?: string): void {
    this.allowedToClose = false;
    this.reason.textContent = reason ?? '';
    this.button.disabled = false;
    if (!this.root.open) this.root.showModal();
    this.button.focus();
  }

  /** While the page leaves for the provider. */
  leaving(): void {
    this.button.disabled = true;
  }

  close(): void {
    this.allowedToClose = true;
    if (this.root.open) this.root.close();
  }
}
