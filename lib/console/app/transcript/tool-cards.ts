/**
 * One card per tool call (docs/protocol.md §4.7): its name, arguments (TOOL_CALL_ARGS, shown as
 * JSON once complete), progress (CUSTOM iac-code.tool-progress.v1, gone once the tool has a
 * result) and result (TOOL_CALL_RESULT).
 *
 * A call keeps one card for the whole thread: a resume's run may carry the start again or only
 * the result of a call an earlier run started (a permission's command, an answered question,
 * §5.6), and that card — where the call began — is the one updated.
 *
 * AG-UI has no error flag on a result (§4.7): a result that reports an error (lib/client/tool-errors.ts)
 * is shown as failed, with the error in words.
 */

import { toolErrorOf } from '../../../client/tool-errors.js';
import { el, prettyJson } from '../dom.js';
import { num, obj, str } from './event-fields.js';

interface Card {
  root: HTMLElement;
  state: HTMLElement;
  args: HTMLElement;
  argsText: string;
  progress: HTMLElement;
  result: HTMLElement;
}

/** The thread's tool cards by toolCallId, shared by its runs. */
export type ToolCardRegistry = Map<string, Card>;

const STATE_WORDS: Record<string, string> = { running: 'running', called: 'running', done: 'done', failed: 'failed' };

export class ToolCards {
  constructor(
    private readonly place: (node: HTMLElement) => void,
    private readonly cards: ToolCardRegistry,
  ) {}

  start(toolCallId: string, name: string): void {
    const known = this.cards.get(toolCallId);
    if (known) {
      // Started again by a later run: its arguments come again whole.
      known.argsText = '';
      return;
    }
    const state = el('span', { class: 'badge', text: STATE_WORDS['running'] });
    const args = el('pre', { class: 'tool-args' });
    const progress = el('div', { class: 'tool-progress', hidden: true });
    const result = el('div', { class: 'tool-result', hidden: true });
    const root = el(
      'article',
      { class: 'tool-card', 'data-tool-call-id': toolCallId, 'data-state': 'running', 'aria-label': `Tool ${name}` },
      el('header', {}, el('h4', { text: name }), state),
      el('details', { class: 'tool-args-box' }, el('summary', { text: 'Arguments' }), args),
      progress,
      result,
    );
    this.place(root);
    this.cards.set(toolCallId, { root, state, args, argsText: '', progress, result });
  }

  args(toolCallId: string, delta: string): void {
    const card = this.cards.get(toolCallId);
    if (!card) return;
    card.argsText += delta;
    card.args.textContent = prettyJson(card.argsText);
  }

  end(toolCallId: string): void {
    const card = this.cards.get(toolCallId);
    if (card && card.root.dataset['state'] === 'running') this.setState(card, 'called');
  }

  progress(value: Record<string, unknown>): void {
    const id = str(value, 'toolUseId');
    const card = id === undefined ? undefined : this.cards.get(id);
    // A result ends the tool: later progress is stale.
    if (!card?.result.hidden) return;
    const mcp = obj(value, 'mcp');
    const done = num(mcp, 'progress');
    const total = num(mcp, 'total');
    const fraction = num(value, 'mcpProgress') ?? (done !== undefined && total ? done / total : undefined);
    const message = str(mcp, 'message') ?? str(value, 'message') ?? 'working';
    const bar = el('progress', { max: '1', 'aria-label': `Progress of ${str(value, 'name') ?? 'the tool'}` });
    if (fraction !== undefined) bar.value = Math.min(1, Math.max(0, fraction));
    const label = done !== undefined && total !== undefined ? `${message} (${done}/${total})` : message;
    card.progress.replaceChildren(bar, el('span', { text: label }));
    card.progress.hidden = false;
  }

  result(toolCallId: string, content: string): void {
    const card = this.cards.get(toolCallId);
    if (!card) return;
    const error = toolErrorOf(content);
    const said = el('h5', { text: error === undefined ? 'Result' : 'Full result' });
    card.result.replaceChildren(
      ...(error === undefined ? [] : [el('p', { class: 'tool-error' }, el('strong', { text: 'Failed: ' }), error)]),
      said,
      el('pre', { text: prettyJson(content) }),
    );
    card.result.hidden = false;
    // The tool has ended: its progress is history.
    card.progress.replaceChildren();
    card.progress.hidden = true;
    this.setState(card, error === undefined ? 'done' : 'failed');
  }

  private setState(card: Card, state: string): void {
    card.root.dataset['state'] = state;
    card.state.textContent = STATE_WORDS[state] ?? state;
    card.state.dataset['state'] = state;
  }
}
