/**
 * The page (docs/architecture.md §4.7): a header with the connection state, the threads (new, recent, reopen) and
 * the current conversation — transcript, pipeline tree, interrupts, message box and a cancel
 * button. It opens straight onto a new thread with default settings, so the first message is just
 * typed and sent; until then a short introduction says what to type (and, against the built-in
 * emulator, which first words pick which scenario).
 *
 * A reload comes back to the thread this tab showed and, once the page may talk to the adapter,
 * reattaches to the run that was streaming (run/conversation.ts, docs/protocol.md §6.14).
 */
import type { Composer, Outgoing } from './composer/composer.js';
import type { ConsoleConfig, Example } from './connection/console-config.js';
import type { Failure } from './connection/failures.js';
import { readToken } from './connection/session-token.js';
import { el } from './dom.js';
import { Conversation } from './run/conversation.js';
import { findThread, listThreads, rememberThread } from './threads/recent-threads.js';
import { currentThread, liveRun, rememberCurrentThread } from './threads/run-records.js';
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
  private readonly intro: HTMLElement;
  private readonly examples: HTMLElement | null;
  /** The page may talk to the adapter (a token is known when one is needed). */
  private ready = false;

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
    this.examples = parts.config.examples.length
      ? el(
          'div',
          { class: 'examples', role: 'group', 'aria-label': 'Example prompts' },
          el('span', { text: 'Try:' }),
          ...parts.config.examples.map((example) =>
            el('button', { type: 'button', class: 'chip', text: example.label, title: example.description ?? example.text, on: { click: () => this.useExample(example) } }),
          ),
        )
      : null;
    this.intro = this.introduction(parts.config.examples);
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
          this.intro,
          this.conversationSlot,
          this.examples,
          parts.composer.root,
        ),
      ),
      parts.tokenDialog.root,
    );
    this.switchTo(this.initialThread());
    // What the page shows is kept for a reload (run/conversation.ts).
    window.addEventListener('pagehide', () => this.conversation.persist());
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
    this.ready = true;
    this.say(readToken() ? 'Connected with a token (kept in this tab only).' : 'Connected.');
    this.parts.composer.focus();
    this.conversation.watch();
  }

  /** After a reload: the thread whose run was streaming, else the thread this tab showed, else a new one. */
  private initialThread(): ThreadSettings {
    const threadId = liveRun()?.threadId ?? currentThread();
    return (threadId && findThread(threadId)) || newThreadSettings();
  }

  /** Fills the message box with an example and the run mode it needs; sending stays the person's Enter. */
  private useExample(example: Example): void {
    const runMode = example.runMode ?? 'normal';
    if (runMode !== this.conversation.settings.runMode && !this.conversation.busy) {
      this.conversation.settings.runMode = runMode;
      if (this.conversation.settings.started) rememberThread(this.conversation.settings);
      this.refresh();
    }
    this.parts.composer.fill(example.text);
    this.parts.composer.hint(`Press Enter to send it (run mode: ${runMode}).`);
  }

  private introduction(examples: readonly Example[]): HTMLElement {
    const list = examples.filter((example) => example.description);
    return el(
      'section',
      { class: 'intro', 'aria-labelledby': 'intro-heading' },
      el('h2', { id: 'intro-heading', text: 'Start a run' }),
      el('p', {
        text: 'Type a message in the box below and press Enter: the run streams in here — text, tool calls, a pipeline’s tree. When the agent needs you (a permission, a choice), a form appears above the box.',
      }),
      list.length > 0
        ? el(
            'div',
            {},
            el('p', { text: 'This adapter runs the built-in iac-code emulator: the first word of your message picks what it does. Pick one to fill in the box:' }),
            el(
              'ul',
              { class: 'intro-examples' },
              ...list.map((example) =>
                el(
                  'li',
                  {},
                  el('button', { type: 'button', class: 'chip', text: example.label, on: { click: () => this.useExample(example) } }),
                  ' ',
                  el('span', { text: example.description ?? '' }),
                ),
              ),
            ),
          )
        : null,
    );
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
    if (settings.started) {
      rememberThread(settings);
      rememberCurrentThread(settings.threadId);
    }
    // The tree sits right above the forms it may be waiting on, next to the message box.
    this.conversationSlot.replaceChildren(this.conversation.transcript, this.conversation.pipeline.root, this.conversation.interrupts.root);
    this.refresh();
    this.parts.composer.focus();
    if (this.ready) this.conversation.watch();
  }

  private refresh(): void {
    const { conversation } = this;
    const { settings } = conversation;
    this.heading.textContent = `Thread ${settings.threadId}`;
    this.settingsSummary.textContent = `${settings.runMode} · ${settings.cwd}${settings.language ? ` · ${settings.language}` : ''}`;
    this.settingsForm.fill(settings, { bound: settings.started });
    this.intro.hidden = conversation.transcript.childElementCount > 0 || conversation.hasPending;
    // The introduction lists the examples already; the short row takes over once it is gone.
    if (this.examples) this.examples.hidden = !this.intro.hidden;
    this.cancelButton.disabled = !conversation.cancellable;
    this.cancelButton.hidden = !(conversation.busy || conversation.hasPending);
    const threads = listThreads();
    this.threadList.render(threads.some((thread) => thread.threadId === settings.threadId) ? threads : [settings, ...threads], settings.threadId, conversation.busy);
    if (conversation.busy) this.parts.composer.setEnabled(false, '');
    else if (conversation.hasPending) this.parts.composer.setEnabled(false, 'Answer the request above first (or use Cancel run at the top).');
    else this.parts.composer.setEnabled(true, '');
  }
}
