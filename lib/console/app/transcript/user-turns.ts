/**
 * The person's side of the transcript (docs/architecture.md §4.7): a message they sent, and an
 * answer they gave to an interrupt's form — kept in the transcript as their message, so that what
 * they chose stays in view after the form is gone. Both show their time and a copy button.
 */
import { el } from '../dom.js';
import { messageMeta } from './message-meta.js';

export function userTurn(text: string, extra: Array<HTMLElement | null>, at: number): HTMLElement {
  return el(
    'article',
    { class: 'turn user', 'aria-label': 'You' },
    text ? el('p', { class: 'message-text', text }) : null,
    ...extra,
    messageMeta(at, 'your message', () => text),
  );
}

export function answerTurn(text: string, at: number): HTMLElement {
  return el(
    'article',
    { class: 'turn user answer', 'aria-label': 'Your answer' },
    el('p', { class: 'answer-caption', text: 'Your answer' }),
    el('p', { class: 'message-text', text }),
    messageMeta(at, 'your answer', () => text),
  );
}
