/**
 * A thread's `iacCode` essentials as a small form (docs/protocol.md §3): working directory,
 * ROS invocation id, run mode and language, with defaults filled in. Used to start a new thread
 * and to adjust the current one between runs (cwd and the invocation id are fixed once it started).
 */
import { el, uid } from '../dom.js';
import { LANGUAGES, type Language, type RunMode, type ThreadSettings } from '../threads/thread-settings.js';

const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', zh: '中文', es: 'Español', fr: 'Français', de: 'Deutsch', ja: '日本語', pt: 'Português' };

export type SettingsChoice = Pick<ThreadSettings, 'cwd' | 'rosInvocationId' | 'runMode' | 'language'>;

export class ThreadForm {
  readonly root: HTMLFormElement;
  private readonly cwd: HTMLInputElement;
  private readonly invocation: HTMLInputElement;
  private readonly runMode: HTMLSelectElement;
  private readonly language: HTMLSelectElement;
  private readonly error: HTMLElement;

  constructor(submitLabel: string, onSubmit: (choice: SettingsChoice) => void) {
    const id = uid('thread-form');
    this.cwd = el('input', { id: `${id}-cwd`, type: 'text', name: 'cwd', autocomplete: 'off', spellcheck: 'false' });
    this.invocation = el('input', { id: `${id}-ros`, type: 'text', name: 'rosInvocationId', autocomplete: 'off', spellcheck: 'false' });
    this.runMode = el('select', { id: `${id}-mode`, name: 'runMode' }, el('option', { value: 'normal', text: 'normal' }), el('option', { value: 'pipeline', text: 'pipeline' }));
    this.language = el(
      'select',
      { id: `${id}-language`, name: 'language' },
      el('option', { value: '', text: 'Browser default' }),
      ...LANGUAGES.map((code) => el('option', { value: code, text: `${LANGUAGE_NAMES[code]} (${code})` })),
    );
    this.error = el('p', { class: 'field-error', role: 'alert' });
    const row = (input: HTMLElement, label: string) => el('div', { class: 'field' }, el('label', { for: input.id, text: label }), input);
    this.root = el(
      'form',
      { class: 'thread-form', novalidate: true },
      row(this.cwd, 'Working directory (cwd)'),
      row(this.invocation, 'ROS invocation id'),
      row(this.runMode, 'Run mode'),
      row(this.language, 'Language'),
      this.error,
      el('button', { type: 'submit', class: 'primary', text: submitLabel }),
    );
    this.root.addEventListener('submit', (event) => {
      event.preventDefault();
      const cwd = this.cwd.value.trim();
      if (!cwd.startsWith('/')) {
        this.error.textContent = 'The working directory must be an absolute path.';
        this.cwd.focus();
        return;
      }
      this.error.textContent = '';
      onSubmit({ cwd, rosInvocationId: this.invocation.value.trim(), runMode: this.runMode.value as RunMode, language: this.language.value as Language | '' });
    });
  }

  fill(settings: SettingsChoice, options: { bound: boolean }): void {
    this.cwd.value = settings.cwd;
    this.invocation.value = settings.rosInvocationId;
    this.runMode.value = settings.runMode;
    this.language.value = settings.language;
    // A started thread is bound to its cwd, and its resumes need the same invocation id (docs/protocol.md §6).
    this.cwd.disabled = options.bound;
    this.invocation.disabled = options.bound;
  }
}
