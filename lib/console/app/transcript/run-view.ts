/**
 * One run in the transcript (docs/architecture.md §4.7): routes its AG-UI events to the blocks that show them —
 * streamed text and folded reasoning, tool cards, artifacts, the thread's pipeline tree — and ends
 * with the footer (state, usage, session ids, error).
 *
 * Two events are the console's own, never on the wire: CONSOLE_NOTE (a line such as "reattached
 * after a reload") and CONSOLE_STATE (the footer's state, and a failure no terminal event carried:
 * an error before the stream, a lost connection, nothing left to watch). They are applied and
 * logged like the rest, so a reload replays a run exactly as it was shown (threads/transcript-log.ts).
 */
import { type Failure, runErrorFailure } from '../../../client/failures.js';
import { el } from '../dom.js';
import { artifactCard } from './artifacts.js';
import { CONSOLE_NOTE, CONSOLE_STATE, CUSTOM_ARTIFACT, CUSTOM_PIPELINE, CUSTOM_SESSION, CUSTOM_TOOL_PROGRESS, type EventRecord, num, obj, str } from './event-fields.js';
import type { PipelineTree } from './pipeline-tree.js';
import { RunFooter } from './run-footer.js';
import { TextBlocks } from './text-blocks.js';
import { type ToolCardRegistry, ToolCards } from './tool-cards.js';

/** `away`: the note marks where the run's stream was lost and picked up again (docs/protocol.md §6.15). */
export function consoleNote(text: string, mark?: 'away'): EventRecord {
  return { type: CONSOLE_NOTE, text, ...(mark ? { mark } : {}) };
}

export function consoleState(text: string, state: string, failure?: Failure): EventRecord {
  return { type: CONSOLE_STATE, text, state, ...(failure ? { failure } : {}) };
}

/** A run's own cancel, or any other (docs/protocol.md §2.4): an ending, not a failure. */
const CANCELLED = 'CANCELLED';

export class RunView {
  readonly root: HTMLElement;
  readonly footer = new RunFooter();
  private readonly stream: HTMLElement;
  private readonly text: TextBlocks;
  private readonly tools: ToolCards;

  constructor(
    label: string,
    private readonly pipeline: PipelineTree,
    /** The thread's tool cards (transcript/tool-cards.ts). */
    toolCards: ToolCardRegistry,
  ) {
    this.stream = el('div', { class: 'run-stream' });
    const place = (node: HTMLElement) => this.stream.append(node);
    this.text = new TextBlocks(place);
    this.tools = new ToolCards(place, toolCards);
    this.root = el('section', { class: 'run', 'aria-label': label }, this.stream, this.footer.root);
    this.footer.setState('Running…', 'running');
  }

  /** The footer's state word (running, reconnecting, finished, interrupt, error…). */
  get state(): string | undefined {
    return this.footer.root.dataset['state'];
  }

  apply(event: EventRecord): void {
    this.pipeline.apply(event);
    const messageId = str(event, 'messageId') ?? '';
    // The adapter stamps every event (docs/protocol.md §4); the console's own events are not.
    const at = num(event, 'timestamp');
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
        if (!this.pipeline.model.candidateForMessage(messageId)) this.text.startMessage(messageId, at);
        return;
      case 'TEXT_MESSAGE_CONTENT':
        if (!this.pipeline.appendText(messageId, str(event, 'delta') ?? '')) this.text.appendText(messageId, str(event, 'delta') ?? '', at);
        return;
      case 'TEXT_MESSAGE_END':
        this.text.endMessage(messageId);
        return;
      case 'REASONING_MESSAGE_START':
        this.text.startReasoning(messageId);
        return;
      case 'REASONING_MESSAGE_CONTENT':
        this.text.appendReasoning(messageId, str(event, 'delta') ?? '');
        return;
      case 'REASONING_MESSAGE_END':
        this.text.endReasoning(messageId);
        return;
      case 'TOOL_CALL_START':
        this.tools.start(str(event, 'toolCallId') ?? '', str(event, 'toolCallName') ?? 'tool');
        return;
      case 'TOOL_CALL_ARGS':
        this.tools.args(str(event, 'toolCallId') ?? '', str(event, 'delta') ?? '');
        return;
      case 'TOOL_CALL_END':
        this.tools.end(str(event, 'toolCallId') ?? '');
        return;
      case 'TOOL_CALL_RESULT':
        this.tools.result(str(event, 'toolCallId') ?? '', str(event, 'content') ?? '');
        return;
      case 'CUSTOM':
        this.custom(str(event, 'name'), obj(event, 'value') ?? {});
        return;
      case 'RUN_FINISHED': {
        const outcome = str(obj(event, 'outcome'), 'type') ?? 'success';
        this.footer.setState(outcome === 'interrupt' ? 'Waiting for your answer' : 'Finished', outcome === 'interrupt' ? 'interrupt' : 'finished');
        this.footer.showUsage(event['usage']);
        return;
      }
      case 'RUN_ERROR': {
        const code = str(event, 'code') ?? 'RUN_ERROR';
        const message = str(event, 'message') ?? 'The run failed.';
        if (code === CANCELLED) {
          this.footer.setState('Cancelled', 'cancelled');
          this.footer.showNotice(message);
        } else {
          this.footer.setState('Failed', 'error');
          this.footer.showFailure(runErrorFailure(code, message));
        }
        this.footer.showUsage(event['usage']);
        return;
      }
      case CONSOLE_NOTE:
        this.stream.append(el('p', { class: str(event, 'mark') === 'away' ? 'note away' : 'note', text: str(event, 'text') ?? '' }));
        return;
      case CONSOLE_STATE: {
        this.footer.setState(str(event, 'text') ?? '', str(event, 'state') ?? 'error');
        const failure = obj(event, 'failure') as Failure | undefined;
        if (failure) this.footer.showFailure(failure);
        else this.footer.clearFailure();
        return;
      }
      default:
        return;
    }
  }

  private custom(name: string | undefined, value: Record<string, unknown>): void {
    if (name === CUSTOM_SESSION) this.footer.showSession(value);
    else if (name === CUSTOM_ARTIFACT) this.stream.append(artifactCard(value));
    else if (name === CUSTOM_TOOL_PROGRESS) this.tools.progress(value);
    else if (name !== CUSTOM_PIPELINE) this.stream.append(el('p', { class: 'custom-event', text: `${name ?? 'custom event'}` }));
  }
}
