/**
 * The page (docs/architecture.md §4.7): a header with the connection state, the threads beside the
 * conversation (a drawer on a phone, so the conversation comes first), and the conversation —
 * scrolling in its own region that follows new output, with the run's status, the examples and the
 * message box pinned below it, and the thread's settings in a drawer beside it. It opens straight
 * onto a new thread with default settings, so the first message is just typed and sent; until then
 * a short introduction says what to type (and, against the built-in emulator, which first words
 * pick which scenario). Esc stops a streaming run.
 *
 * A reload comes back to the thread this tab showed and, once the page may talk to the adapter,
 * reattaches to the run that was streaming (run/conversation.ts, docs/protocol.md §6.14).
 */

import type { Failure } from '../../client/failures.js';
import type { Composer, Outgoing } from './composer/composer.js';
import type { Access } from './connection/access.js';
import type { ConsoleConfig, Example } from './connection/console-config.js';
import { el } from './dom.js';
import { Conversation } from './run/conversation.js';
import { findThread, forgetThread, listThreads, rememberThread } from './threads/recent-threads.js';
import { currentThread, forgetPending, liveRun, rememberCurrentThread } from './threads/run-records.js';
import { newThreadSettings, type ThreadSettings } from './threads/thread-settings.js';
import { forgetTranscript } from './threads/transcript-log.js';
import { FollowScroll } from './ui/follow-scroll.js';
import { exampleChips, introduction } from './ui/introduction.js';
import { RunStatus } from './ui/run-status.js';
import { SettingsDrawer } from './ui/settings-drawer.js';
import { ThreadForm } from './ui/thread-form.js';
import { ThreadList, titleOf } from './ui/thread-list.js';

export interface AppParts {
  config: ConsoleConfig;
  composer: Composer;
  /** The token dialog, or the sign-in with the identity provider (connection/access.ts). */
  access: Access;
  /** Who is signed in, with a sign-out button: in the top bar, when the page signs people in. */
  account?: HTMLElement;
}

const RUN_GOING_ON = 'A run is going on: your message stays here until it ends. Press Esc (or Stop) to stop the run.';
const ANSWER_FIRST = 'Answer the request above first — or press Stop to cancel the run.';

export class ConsoleApp {
  readonly root: HTMLElement;
  private conversation!: Conversation;
  private readonly status: HTMLElement;
  private readonly threadList: ThreadList;
  private readonly settingsForm: ThreadForm;
  private readonly settingsSummary: HTMLElement;
  private readonly settings: SettingsDrawer;
  private readonly conversationSlot: HTMLElement;
  private readonly runStatus: RunStatus;
  private readonly follow: FollowScroll;
  private readonly heading: HTMLElement;
  private readonly newThreadButton: HTMLButtonElement;
  private readonly intro: HTMLElement;
  private readonly examples: HTMLElement | null;
  /** The page may talk to the adapter (a token is known, or a person signed in, when one is needed). */
  private ready = false;
  /** What the token was refused for, sent again once the person has connected. */
  private retry: (() => void) | undefined;

  constructor(private readonly parts: AppParts) {
    this.status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.threadList = new ThreadList({
      open: (threadId) => this.open(threadId),
      rename: (threadId, title) => this.rename(threadId, title),
      remove: (threadId) => this.remove(threadId),
    });
    this.newThreadButton = el('button', { type: 'button', class: 'new-thread', text: '+ New thread', on: { click: () => this.startNewThread() } });
    this.settingsForm = new ThreadForm('Save settings', (choice) => {
      Object.assign(this.conversation.settings, this.conversation.settings.started ? { runMode: choice.runMode, language: choice.language } : choice);
      if (this.conversation.settings.started) rememberThread(this.conversation.settings, true);
      this.settings.close();
      this.refresh();
      this.say('Settings saved; they apply from the next run.');
    });
    this.settingsSummary = el('span', { class: 'settings-summary' });
    this.settings = new SettingsDrawer(this.settingsForm.root, this.settingsSummary);
    this.runStatus = new RunStatus(() => void this.stop());
    this.heading = el('h2', { id: 'conversation-heading' });
    this.conversationSlot = el('div', { class: 'conversation-body' });
    this.examples = exampleChips(parts.config.examples, (example) => this.useExample(example));
    this.intro = introduction(parts.config.examples, (example) => this.useExample(example));
    const content = el('div', { class: 'conversation-content' }, this.intro, this.conversationSlot);
    const scroller = el('div', { class: 'conversation-scroll' }, content);
    this.follow = new FollowScroll(scroller, content);
    const threadsToggle = el('button', {
      type: 'button',
      class: 'threads-toggle',
      'aria-controls': 'threads',
      'aria-expanded': 'false',
      text: 'Threads',
      on: { click: () => this.showThreads(this.root.dataset['threads'] !== 'open') },
    });
    this.root = el(
      'div',
      { class: 'console' },
      el('header', { class: 'topbar' }, threadsToggle, el('h1', { text: 'iac-code console' }), this.status, parts.account),
      el(
        'div',
        { class: 'layout' },
        el(
          'nav',
          { id: 'threads', class: 'sidebar', 'aria-labelledby': 'threads-heading' },
          el('div', { class: 'sidebar-head' }, el('h2', { id: 'threads-heading', text: 'Threads' }), this.newThreadButton),
          this.threadList.root,
        ),
        el(
          'main',
          { class: 'conversation', 'aria-labelledby': 'conversation-heading' },
          el('header', { class: 'conversation-header' }, this.heading, this.settings.toggle),
          el('div', { class: 'conversation-view' }, scroller, this.follow.jump),
          el('div', { class: 'composer-area' }, this.examples, this.runStatus.root, parts.composer.root),
        ),
        this.settings.root,
      ),
      parts.access.dialog,
    );
    // On a phone the threads are a drawer: a tap beside it closes it.
    this.root.addEventListener('click', (event) => {
      if (this.root.dataset['threads'] === 'open' && !(event.target as Element).closest('.sidebar, .threads-toggle')) this.showThreads(false);
    });
    this.switchTo(this.initialThread());
    // What the page shows is kept for a reload (run/conversation.ts).
    window.addEventListener('pagehide', () => this.conversation.persist());
    document.addEventListener('keydown', (event) => this.escape(event));
    // Another tab started, renamed or removed a thread: the list follows.
    window.addEventListener('storage', (event) => {
      if (event.key === null || event.key === 'iac-code-console.threads') this.renderThreads();
    });
  }

  /** Sends the composer's message on the current thread, and brings the newest output into view. */
  send(message: Outgoing): void {
    this.follow.toBottom();
    void this.conversation.send(message);
  }

  say(message: string): void {
    this.status.textContent = message;
  }

  connected(): void {
    this.ready = true;
    this.say(this.parts.access.connectedText());
    this.parts.composer.focus();
    this.conversation.watch();
    const retry = this.retry;
    this.retry = undefined;
    retry?.();
  }

  private unauthorized(failure: Failure, retry?: () => void, draft?: string): void {
    this.retry = retry;
    this.parts.access.refused(failure, retry ? { draft } : undefined);
  }

  /** Esc stops a streaming run — unless something on the page (a dialog, a drawer, a rename) took it. */
  private escape(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || event.defaultPrevented || this.parts.access.dialog.open) return;
    if (this.root.dataset['threads'] === 'open') {
      this.showThreads(false);
      return;
    }
    if (!this.conversation.busy || !this.conversation.cancellable) return;
    event.preventDefault();
    void this.stop();
  }

  /** Stops the run (or the execution waiting for answers); the focus goes back to the message box. */
  private async stop(): Promise<void> {
    await this.conversation.cancel();
    this.parts.composer.focus();
  }

  /** After a reload: the thread whose run was streaming, else the thread this tab showed, else a new one. */
  private initialThread(): ThreadSettings {
    const threadId = liveRun()?.threadId ?? currentThread();
    return (threadId && findThread(threadId)) || newThreadSettings();
  }

  /** Fills the message box with an example; a run mode it needs is set, and said. */
  private useExample(example: Example): void {
    const runMode = example.runMode ?? 'normal';
    let said = 'Press Enter to send it.';
    if (runMode !== this.conversation.settings.runMode && !this.conversation.busy) {
      this.conversation.settings.runMode = runMode;
      if (this.conversation.settings.started) rememberThread(this.conversation.settings, true);
      this.refresh();
      said = `This example runs in ${runMode} mode: the thread’s run mode is now ${runMode} (Settings changes it). Press Enter to send it.`;
      this.say(`Run mode set to ${runMode}.`);
    }
    this.parts.composer.fill(example.text);
    this.parts.composer.hint(said);
  }

  private startNewThread(): void {
    if (this.conversation.busy) {
      this.say('A run is still going on: wait for it or stop it before starting a new thread.');
      return;
    }
    this.showThreads(false);
    this.switchTo(newThreadSettings());
    this.say('New thread started.');
  }

  private open(threadId: string): void {
    this.showThreads(false);
    if (threadId === this.conversation.settings.threadId || this.conversation.busy) return;
    const settings = findThread(threadId);
    if (settings) this.switchTo(settings);
  }

  private rename(threadId: string, title: string): void {
    const settings = threadId === this.conversation.settings.threadId ? this.conversation.settings : findThread(threadId);
    if (!settings) return;
    settings.title = title;
    if (settings.started) rememberThread(settings, true);
    this.refresh();
    this.say(`Renamed to “${title}”.`);
  }

  /** Forgets the thread in this browser (list, transcript, pending answers); the adapter keeps it. */
  private remove(threadId: string): void {
    const title = titleOf(findThread(threadId) ?? this.conversation.settings);
    forgetThread(threadId);
    forgetTranscript(threadId);
    forgetPending(threadId);
    if (threadId === this.conversation.settings.threadId) this.switchTo(newThreadSettings());
    else this.refresh();
    this.say(`Removed “${title}” from this list. The adapter keeps the thread.`);
  }

  private showThreads(open: boolean): void {
    if (open) this.root.dataset['threads'] = 'open';
    else delete this.root.dataset['threads'];
    this.root.querySelector('.threads-toggle')?.setAttribute('aria-expanded', String(open));
    if (open) this.root.querySelector<HTMLElement>('.sidebar button')?.focus();
  }

  private switchTo(settings: ThreadSettings): void {
    if (this.conversation?.busy) return;
    this.conversation = new Conversation(settings, {
      changed: () => this.refresh(),
      unauthorized: (failure, retry, draft) => this.unauthorized(failure, retry, draft),
      say: (message) => this.say(message),
      activity: (event) => this.runStatus.observe(event),
    });
    if (settings.started) {
      rememberThread(settings);
      rememberCurrentThread(settings.threadId);
    }
    // The tree sits right above the forms it may be waiting on, next to the message box.
    this.conversationSlot.replaceChildren(this.conversation.transcript, this.conversation.pipeline.root, this.conversation.interrupts.root);
    this.refresh();
    // A new thread opens on its introduction, from the top; a thread with a history on its newest output.
    if (this.intro.hidden) this.follow.toBottom();
    else this.follow.toTop();
    this.parts.composer.focus();
    if (this.ready) this.conversation.watch();
  }

  private renderThreads(): void {
    const { settings, busy } = this.conversation;
    const threads = listThreads();
    this.threadList.render(threads.some((thread) => thread.threadId === settings.threadId) ? threads : [settings, ...threads], settings.threadId, busy);
  }

  private refresh(): void {
    const { conversation } = this;
    const { settings } = conversation;
    this.heading.textContent = titleOf(settings);
    this.heading.dataset['threadId'] = settings.threadId;
    this.settings.showThread(settings.threadId);
    this.settingsSummary.textContent = `${settings.runMode} · ${settings.cwd}${settings.language ? ` · ${settings.language}` : ''}`;
    this.settingsForm.fill(settings, { bound: settings.started });
    this.intro.hidden = conversation.transcript.childElementCount > 0 || conversation.hasPending;
    // The introduction lists the examples already; the short row takes over once it is gone.
    if (this.examples) this.examples.hidden = !this.intro.hidden;
    if (conversation.busy) this.runStatus.running(conversation.liveSince, conversation.cancellable);
    else if (conversation.hasPending) this.runStatus.waiting(conversation.cancellable);
    else this.runStatus.idle();
    this.newThreadButton.disabled = conversation.busy;
    this.renderThreads();
    if (conversation.busy) this.parts.composer.setEnabled(false, RUN_GOING_ON, false);
    // The run status above the box already says that an answer is awaited: this is said on Enter.
    else if (conversation.hasPending) this.parts.composer.setEnabled(false, ANSWER_FIRST, false);
    else this.parts.composer.setEnabled(true);
  }
}
