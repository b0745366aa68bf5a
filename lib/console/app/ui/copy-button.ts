/**
 * A "Copy" button (docs/architecture.md §4.7): copies what `text()` gives at the moment of the
 * click and says so on the button for a moment. The Clipboard API needs a secure context
 * (https, or localhost); elsewhere the text is copied through a selected, off-screen text area.
 */
import { el } from '../dom.js';

const SAID_FOR_MS = 1500;

async function writeClipboard(text: string): Promise<boolean> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no focus, no permission): the fallback below may still work.
    }
  }
  const area = el('textarea', { class: 'visually-hidden', 'aria-hidden': 'true', readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  return copied;
}

export function copyButton(what: string, text: () => string): HTMLButtonElement {
  const label = 'Copy';
  const button = el('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}`, title: `Copy ${what}`, text: label });
  let timer: number | undefined;
  button.addEventListener('click', () => {
    void writeClipboard(text()).then((copied) => {
      button.textContent = copied ? 'Copied' : 'Copy failed';
      window.clearTimeout(timer);
      timer = window.setTimeout(() => {
        button.textContent = label;
      }, SAID_FOR_MS);
    });
  });
  return button;
}
