/**
 * What a new thread shows before its first message (docs/architecture.md §4.7): what to type and,
 * against the built-in emulator, its scenarios as example prompts with what each shows.
 */
import type { Example } from '../connection/console-config.js';
import { el } from '../dom.js';

export function introduction(examples: readonly Example[], use: (example: Example) => void): HTMLElement {
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
                el('button', { type: 'button', class: 'chip', text: example.label, on: { click: () => use(example) } }),
                ' ',
                el('span', { text: example.description ?? '' }),
              ),
            ),
          ),
        )
      : null,
  );
}

/** The short row of examples, once the introduction is gone. */
export function exampleChips(examples: readonly Example[], use: (example: Example) => void): HTMLElement | null {
  if (examples.length === 0) return null;
  return el(
    'div',
    { class: 'examples', role: 'group', 'aria-label': 'Example prompts' },
    el('span', { text: 'Try:' }),
    ...examples.map((example) =>
      el('button', { type: 'button', class: 'chip', text: example.label, title: example.description ?? example.text, on: { click: () => use(example) } }),
    ),
  );
}
