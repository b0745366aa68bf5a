/**
 * One card per tool call (docs/protocol.md §4): its name, arguments (TOOL_CALL_ARGS, shown as JSON
 * once complete), progress (CUSTOM iac-code.tool-progress.v1) and result (TOOL_CALL_RESULT).
 *
 * A resume's run may carry only the result of a call an earlier run started — an answered
 * question's or resource selection's TOOL_CALL_RESULT comes right after acceptance (§5.6) — so the
 * names of the thread's tool calls are shared between runs and such a result gets a card of its own.
 */
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

export class ToolCards {
  private readonly cards = new Map<string, Card>();

  constructor(
    private readonly place: (node: HTMLElement) => void,
    /** toolCallId → tool name, for the whole thread. */
    private readonly names: Map<string, string>,
  ) {}

  start(toolCallId: string, name: string): void {
    if (this.cards.has(toolCallId)) return;
    this.names.set(toolCallId, name);
    const state = el('span', { class: 'badge', text: 'running' });
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
    if (!card) return;
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
    const earlier = this.names.get(toolCallId);
    if (!this.cards.has(toolCallId) && earlier !== undefined) this.start(toolCallId, earlier);
    const card = this.cards.get(toolCallId);
    if (!card) return;
    card.result.replaceChildren(el('h5', { text: 'Result' }), el('pre', { text: prettyJson(content) }));
    card.result.hidden = false;
    this.setState(card, 'done');
  }

  private setState(card: Card, state: string): void {
    card.root.dataset['state'] = state;
    card.state.textContent = state;
  }
}
