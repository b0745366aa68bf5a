/**
 * The line under a message (docs/architecture.md §4.7): when it was written — the event's own
 * timestamp for the assistant, the moment of sending for the person, so a reload shows the same
 * times — and a button that copies it.
 */
import { el } from '../dom.js';
import { copyButton } from '../ui/copy-button.js';

const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const FULL = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function timeOf(at: number): HTMLTimeElement {
  const date = new Date(at);
  return el('time', { datetime: date.toISOString(), title: FULL.format(date), text: TIME.format(date) });
}

export function messageMeta(at: number, what: string, text: () => string): HTMLElement {
  return el('div', { class: 'message-meta' }, timeOf(at), copyButton(what, text));
}
