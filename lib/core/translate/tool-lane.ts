/**
 * `metadata.iac_code.tool` → TOOL_CALL_* and the tool-progress CUSTOM event (docs/protocol.md §4.7).
 */
import type { JsonObject } from '../a2a/wire-types.js';
import { canonicalJson } from '../canonical-json.js';
import { type AguiEvent, CUSTOM_TOOL_PROGRESS, type MakeEvent } from './events.js';

export class ToolLane {
  private readonly open = new Set<string>();
  private readonly started = new Set<string>();
  private readonly resulted = new Set<string>();

  constructor(
    private readonly make: MakeEvent,
    private readonly newId: () => string,
  ) {}

  /** Continues a run whose events another producer emitted (docs/protocol.md §6.15 "Takeover"). */
  restore(spans: { started: readonly string[]; open: readonly string[]; resulted: readonly string[] }): void {
    for (const id of spans.started) this.started.add(id);
    for (const id of spans.open) this.open.add(id);
    for (const id of spans.resulted) this.resulted.add(id);
  }

  /** `parentMessageId` is the text message open when the tool starts, if any. */
  apply(tool: JsonObject, parentMessageId: string | undefined): AguiEvent[] {
    const status = tool['status'];
    const id = typeof tool['toolUseId'] === 'string' && tool['toolUseId'] ? tool['toolUseId'] : String(tool['toolUseId'] ?? `tool-${this.newId()}`);
    const name = typeof tool['name'] === 'string' && tool['name'] ? tool['name'] : 'tool';
    switch (status) {
      case 'started':
        return this.start(id, name, parentMessageId);
      case 'input_complete': {
        const events = this.start(id, name, parentMessageId);
        if (!this.open.has(id)) return events;
        const input = tool['toolInput'] ?? tool['input'] ?? { summary: tool['inputSummary'] };
        events.push(this.make('TOOL_CALL_ARGS', { toolCallId: id, delta: canonicalJson(input) }));
        events.push(...this.end(id));
        return events;
      }
      case 'completed':
      case 'failed': {
        if (this.resulted.has(id)) return [];
        this.resulted.add(id);
        const result = tool['result'];
        const content = typeof result === 'string' ? result : result === undefined ? '' : canonicalJson(result);
        return [...this.end(id), this.make('TOOL_CALL_RESULT', { messageId: `tool-result-${id}`, toolCallId: id, content, role: 'tool' })];
      }
      case 'progress':
        return [this.make('CUSTOM', { name: CUSTOM_TOOL_PROGRESS, value: { schemaVersion: 1, ...tool } })];
      default:
        return [];
    }
  }

  /** A TOOL_CALL_RESULT for a tool answered outside A2A's tool signals (an answered question). */
  result(id: string, content: string): AguiEvent[] {
    if (this.resulted.has(id)) return [];
    this.resulted.add(id);
    return [...this.end(id), this.make('TOOL_CALL_RESULT', { messageId: `tool-result-${id}`, toolCallId: id, content, role: 'tool' })];
  }

  closeAll(): AguiEvent[] {
    return [...this.open].flatMap((id) => this.end(id));
  }

  private start(id: string, name: string, parentMessageId: string | undefined): AguiEvent[] {
    if (this.started.has(id)) return [];
    this.started.add(id);
    this.open.add(id);
    return [this.make('TOOL_CALL_START', { toolCallId: id, toolCallName: name, parentMessageId })];
  }

  private end(id: string): AguiEvent[] {
    if (!this.open.delete(id)) return [];
    return [this.make('TOOL_CALL_END', { toolCallId: id })];
  }
}
