/**
 * Assistant text and reasoning as they stream (docs/protocol.md §4): TEXT_MESSAGE_* append to one
 * text node per message; REASONING_* go into a folded <details> that says when it is done.
 */
import { el } from '../dom.js';

export class TextBlocks {
  private readonly messages = new Map<string, HTMLElement>();
  private readonly reasoning = new Map<string, { box: HTMLDetailsElement; summary: HTMLElement; body: HTMLElement }>();

  constructor(private readonly place: (node: HTMLElement) => void) {}

  startMessage(messageId: string, into?: HTMLElement): void {
    if (this.messages.has(messageId)) return;
    const body = el('p', { class: 'message-text' });
    if (into) {
      into.append(body);
    } else {
      this.place(el('article', { class: 'turn assistant', 'aria-label': 'Assistant' }, body));
    }
    this.messages.set(messageId, body);
  }

  appendText(messageId: string, delta: string): void {
    if (!this.messages.has(messageId)) this.startMessage(messageId);
    this.messages.get(messageId)?.append(delta);
  }

  endMessage(messageId: string): void {
    this.messages.get(messageId)?.classList.add('done');
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
}
