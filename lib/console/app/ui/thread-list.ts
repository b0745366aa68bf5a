/** Recent threads (threads/recent-threads.ts) as buttons that reopen them; the current one is marked. */
import { el } from '../dom.js';
import type { ThreadSettings } from '../threads/thread-settings.js';

export class ThreadList {
  readonly root: HTMLElement;

  constructor(private readonly onOpen: (threadId: string) => void) {
    this.root = el('ul', { class: 'thread-list', 'aria-label': 'Recent threads' });
  }

  render(threads: readonly ThreadSettings[], currentId: string, locked: boolean): void {
    this.root.replaceChildren(
      ...threads.map((thread) =>
        el(
          'li',
          {},
          el(
            'button',
            {
              type: 'button',
              class: 'thread-item',
              'aria-current': thread.threadId === currentId ? 'true' : undefined,
              disabled: locked && thread.threadId !== currentId,
              on: { click: () => this.onOpen(thread.threadId) },
            },
            el('span', { class: 'thread-id', text: thread.threadId }),
            el('span', { class: 'thread-meta', text: `${thread.runMode} · ${thread.cwd} · ${new Date(thread.createdAt).toLocaleString()}` }),
          ),
        ),
      ),
    );
  }
}
