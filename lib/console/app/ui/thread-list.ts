/**
 * Recent threads (threads/recent-threads.ts) by title, newest first: each opens its thread, and can
 * be renamed (in place: Enter keeps, Esc drops the change) or removed from the list after a
 * confirmation — removed in this browser only: the adapter keeps the thread. The current one is
 * marked; while a run streams the others wait.
 */
import { el } from '../dom.js';
import type { ThreadSettings } from '../threads/thread-settings.js';

export interface ThreadListHooks {
  open(threadId: string): void;
  rename(threadId: string, title: string): void;
  remove(threadId: string): void;
}

const AGE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

function ago(at: number): string {
  const minutes = Math.round((at - Date.now()) / 60_000);
  if (Math.abs(minutes) < 60) return AGE.format(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  return Math.abs(hours) < 24 ? AGE.format(hours, 'hour') : AGE.format(Math.round(hours / 24), 'day');
}

export function titleOf(thread: ThreadSettings): string {
  return thread.title || 'New thread';
}

export class ThreadList {
  readonly root: HTMLElement;
  private last: Parameters<ThreadList['render']> = [[], '', false];

  constructor(private readonly hooks: ThreadListHooks) {
    this.root = el('ul', { class: 'thread-list', 'aria-label': 'Recent threads' });
  }

  render(threads: readonly ThreadSettings[], currentId: string, locked: boolean): void {
    this.last = [threads, currentId, locked];
    // A rename or a removal being confirmed is not thrown away by a redraw.
    if (this.root.querySelector('.thread-rename, .thread-confirm')) return;
    this.root.replaceChildren(...threads.map((thread) => this.item(thread, thread.threadId === currentId, locked && thread.threadId !== currentId)));
  }

  private item(thread: ThreadSettings, current: boolean, locked: boolean): HTMLElement {
    const title = titleOf(thread);
    const item = el('li', { class: 'thread-entry', 'data-thread-id': thread.threadId });
    const open = el(
      'button',
      { type: 'button', class: 'thread-item', 'aria-current': current ? 'true' : undefined, disabled: locked, on: { click: () => this.hooks.open(thread.threadId) } },
      el('span', { class: 'thread-title', text: title }),
      el('span', { class: 'thread-meta', text: `${thread.runMode} · ${ago(thread.createdAt)}` }),
    );
    const rename = el('button', { type: 'button', class: 'icon', 'aria-label': `Rename “${title}”`, title: 'Rename', text: '✎', on: { click: () => this.renaming(item, thread) } });
    const remove = el('button', {
      type: 'button',
      class: 'icon',
      'aria-label': `Remove “${title}” from the list`,
      title: 'Remove from the list',
      text: '×',
      disabled: locked,
      on: { click: () => this.confirming(item, thread) },
    });
    item.append(open, el('span', { class: 'thread-actions' }, rename, remove));
    return item;
  }

  private renaming(item: HTMLElement, thread: ThreadSettings): void {
    const input = el('input', { type: 'text', class: 'thread-rename', 'aria-label': 'Thread name', value: titleOf(thread), maxlength: '80' });
    let done = false;
    const finish = (keep: boolean) => {
      if (done) return;
      done = true;
      const title = input.value.trim();
      input.remove();
      if (keep && title && title !== thread.title) this.hooks.rename(thread.threadId, title);
      else this.render(...this.last);
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        finish(true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        finish(false);
      }
    });
    input.addEventListener('blur', () => finish(true));
    item.replaceChildren(input);
    input.select();
  }

  private confirming(item: HTMLElement, thread: ThreadSettings): void {
    const close = () => question.remove();
    const keep = el('button', {
      type: 'button',
      text: 'Keep',
      on: {
        click: () => {
          close();
          this.render(...this.last);
        },
      },
    });
    const question: HTMLElement = el(
      'div',
      { class: 'thread-confirm', role: 'group', 'aria-label': 'Remove this thread?' },
      el('p', { text: `Remove “${titleOf(thread)}” from this list? The adapter keeps the thread; only this browser forgets it.` }),
      el('button', {
        type: 'button',
        class: 'danger',
        text: 'Remove',
        on: {
          click: () => {
            close();
            this.hooks.remove(thread.threadId);
          },
        },
      }),
      keep,
    );
    question.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        keep.click();
      }
    });
    item.replaceChildren(question);
    keep.focus();
  }
}
