/**
 * Assistant text and reasoning as they stream (docs/protocol.md §4): TEXT_MESSAGE_* build one
 * message per id, rendered as Markdown (transcript/markdown.ts) — redrawn at most every
 * RENDER_EVERY_MS while deltas arrive, at once when the message ends — with its code blocks'
 * own copy buttons, its time and a copy button for the whole message; REASONING_* go into a
 * folded <details> that says when it is done.
 */
import { el } from '../dom.js';
import { copyButton } from '../ui/copy-button.js';
import { renderMarkdown } from './markdown.js';
import { messageMeta } from './message-meta.js';

const RENDER_EVERY_MS = 60;

interface Message {
  body: HTMLElement;
  source: string;
  timer: number | undefined;
}

/** Each code block gets a bar naming its language, with a button that copies exactly its text. */
function decorateCodeBlocks(body: HTMLElement): void {
  for (const pre of body.querySelectorAll('pre')) {
    const code = pre.querySelector('code');
    const language = /language-([\w+-]+)/.exec(code?.className ?? '')?.[1];
    const block = el('div', { class: 'code-block' });
    pre.replaceWith(block);
    block.append(
      el(
        'div',
        { class: 'code-bar' },
        el('span', { text: language ?? 'code' }),
        copyButton(`${language ?? ''} code`.trim(), () => pre.textContent ?? ''),
      ),
      pre,
    );
  }
}

export class TextBlocks {
  private readonly messages = new Map<string, Message>();
  private readonly reasoning = new Map<string, { box: HTMLDetailsElement; summary: HTMLElement; body: HTMLElement }>();

  constructor(private readonly place: (node: HTMLElement) => void) {}

  startMessage(messageId: string, at = Date.now()): void {
    if (this.messages.has(messageId)) return;
    const message: Message = { body: el('div', { class: 'message-text markdown' }), source: '', timer: undefined };
    this.place(
      el(
        'article',
        { class: 'turn assistant', 'aria-label': 'Assistant' },
        message.body,
        messageMeta(at, 'message', () => message.source),
      ),
    );
    this.messages.set(messageId, message);
  }

  appendText(messageId: string, delta: string, at?: number): void {
    if (!this.messages.has(messageId)) this.startMessage(messageId, at);
    const message = this.messages.get(messageId) as Message;
    message.source += delta;
    message.timer ??= window.setTimeout(() => this.render(message), RENDER_EVERY_MS);
  }

  endMessage(messageId: string): void {
    const message = this.messages.get(messageId);
    if (!message) return;
    this.render(message);
    message.body.classList.add('done');
  }

  startReasoning(messageId: string): void {
    if (this.reasoning.has(messageId)) return;
    const summary = el('summary', { text: 'Reasoning…' });
    const body = el('p', { class: 'reasoning-text' });
    const box = el('details', { class: 'reasoning' }, summary, body);
    this.place(box);
    this.reasoning.set(messageId, { box, summary, body });
  }

  appendReasoning(messageId: string, delta: string): void {
    if (!this.reasoning.has(messageId)) this.startReasoning(messageId);
    this.reasoning.get(messageId)?.body.append(delta);
  }

  endReasoning(messageId: string): void {
    const entry = this.reasoning.get(messageId);
    if (entry) entry.summary.textContent = 'Reasoning';
  }

  private render(message: Message): void {
    window.clearTimeout(message.timer);
    message.timer = undefined;
    message.body.replaceChildren(renderMarkdown(message.source));
    decorateCodeBlocks(message.body);
  }
}
