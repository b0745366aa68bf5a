/**
 * The page (docs/architecture.md §4.7): a header with the connection state, the threads (new, recent, reopen) and
 * the current conversation — pipeline tree, transcript, interrupts, message box and a cancel
 * button. It opens straight onto a new thread with default settings, so the first message is just
 * typed and sent.
 */
import type { Composer, Outgoing } from './composer/composer.js';
import type { ConsoleConfig } from './connection/console-config.js';
import type { Failure } from './connection/failures.js';
import { readToken } from './connection/session-token.js';
import { el } from './dom.js';
import { Conversation } from './run/conversation.js';
import { findThread, listThreads, rememberThread } from './threads/recent-threads.js';
import { newThreadSettings, type ThreadSettings } from './threads/thread-settings.js';
import { ThreadForm } from './ui/thread-form.js';
import { ThreadList } from './ui/thread-list.js';
import type { TokenDialog } from './ui/token-dialog.js';

export interface AppParts {
  config: ConsoleConfig;
  composer: Composer;
  tokenDialog: TokenDialog;
}

export class ConsoleApp {
  readonly root: HTMLElement;
  private conversation!: Conversation;
  private readonly status: HTMLElement;
  private readonly threadList: ThreadList;
  private readonly settingsForm: ThreadForm;
  private readonly settingsSummary: HTMLElement;
  private readonly conversationSlot: HTMLElement;
  private readonly cancelButton: HTMLButtonElement;
  private readonly heading: HTMLElement;

  constructor(private readonly parts: AppParts) {
    this.status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.threadList = new ThreadList((threadId) => this.open(threadId));
    const newThreadForm = new ThreadForm('Start thread', (choice) => {
      if (this.conversation.busy) {
        this.say('A run is still going on: wait for it or cancel it before starting a new thread.');
        return;
      }
      newDetails.open = false;
      this.switchTo(newThreadSettings(choice));
      this.say('New thread started.');
    });
    newThreadForm.fill(newThreadSettings(), { bound: false });
    const newDetails = el('details', { class: 'new-thread' }, el('summary', { text: 'New thread…' }), newThreadForm.root);
    newDetails.addEventListener('toggle', () => {
      if (newDetails.open) newThreadForm.fill(newThreadSettings(), { bound: false });
    });
    this.settingsForm = new ThreadForm('Save settings', (choice) => {
      Object.assign(this.conversation.settings, this.conversation.settings.started ? { runMode: choice.runMode, language: choice.language } : choice);
      rememberThread(this.conversation.settings);
      settingsDetails.open = false;
      this.refresh();
      this.say('Settings saved; they apply from the next run.');
    });
    this.settingsSummary = el('span', { class: 'settings-summary' });
    const settingsDetails = el('details', { class: 'thread-settings' }, el('summary', {}, 'Settings: ', this.settingsSummary), this.settingsForm.root);
    this.cancelButton = el('button', { type: 'button', class: 'danger', text: 'Cancel run', on: { click: () => void this.conversation.cancel() } });
    this.heading = el('h2', { id: 'conversation-heading', text: 'Conversation' });
    this.conversationSlot = el('div', { class: 'conversation-body' });
    const examples = parts.config.examples.length
      ? el(
          'div',
          { class: 'examples', role: 'group', 'aria-label': 'Example prompts' },
          el('span', { text: 'Try:' }),
          ...parts.config.examples.map((example) =>
            el('button', {
              type: 'button',
              class: 'chip',
              text: example.label,
              on: {
                click: () => {
                  if (example.runMode && example.runMode !== this.conversation.settings.runMode) {
                    this.conversation.settings.runMode = example.runMode;
                    this.refresh();
                  }
                  parts.composer.fill(example.text);
                },
              },
            }),
          ),
        )
      : null;
    this.root = el(
      'div',
      { class: 'console' },
      el('header', { class: 'topbar' }, el('h1', { text: 'iac-code console' }), this.status),
      el(
        'div',
        { class: 'layout' },
        el('nav', { class: 'sidebar', 'aria-labelledby': 'threads-heading' }, el('h2', { id: 'threads-heading', text: 'Threads' }), newDetails, this.threadList.root),
        el(
          'main',
          { class: 'conversation', 'aria-labelledby': 'conversation-heading' },
          el('header', { class: 'conversation-header' }, this.heading, settingsDetails, this.cancelButton),
          this.conversationSlot,
          examples,
          parts.composer.root,
        ),
      ),
      parts.tokenDialog.root,
    );
    this.switchTo(newThreadSettings());
  }

  /** Sends the composer's message on the current thread. */
  send(message: Outgoing): void {
    void this.conversation.send(message);
  }

  say(message: string): void {
    this.status.textContent = message;
  }

  unauthorized(failure: Failure): void {
    this.parts.tokenDialog.open(`The adapter rejected the token (${failure.code}). Enter it again.`);
  }

  connected(): void {
    this.say(readToken() ? 'Connected with a token (kept in this tab only).' : 'Connected.');
    this.parts.composer.focus();
  }

  private open(threadId: string): void {
    if (threadId === this.conversation.settings.threadId || this.conversation.busy) return;
    const settings = findThread(threadId);
    if (settings) this.switchTo(settings);
  }

  private switchTo(settings: ThreadSettings): void {
    if (this.conversation?.busy) return;
    this.conversation = new Conversation(settings, {
      changed: () => this.refresh(),
      unauthorized: (failure) => this.unauthorized(failure),
      say: (message) => this.say(message),
    });
    if (settings.started) rememberThread(settings);
    this.conversationSlot.replaceChildren(this.conversation.pipeline.root, this.conversation.transcript, this.conversation.interrupts.root);
    this.refresh();
    this.parts.composer.focus();
  }

  private refresh(): void {
    const { conversation } = this;
    const { settings } = conversation;
    this.heading.textContent = `Thread ${settings.threadId}`;
    this.settingsSummary.textContent = `${settings.runMode} · ${settings.cwd}${settings.language ? ` · ${settings.language}` : ''}`;
    this.settingsForm.fill(settings, { bound: settings.started });
    this.cancelButton.disabled = !conversation.cancellable;
    this.cancelButton.hidden = !(conversation.busy || conversation.hasPending);
    const threads = listThreads();
    this.threadList.render(threads.some((thread) => thread.threadId === settings.threadId) ? threads : [settings, ...threads], settings.threadId, conversation.busy);
    if (conversation.busy) this.parts.composer.setEnabled(false, '');
    else if (conversation.hasPending) this.parts.composer.setEnabled(false, 'Answer the request above (or cancel it) before sending a new message.');
    else this.parts.composer.setEnabled(true, '');
  }
}
