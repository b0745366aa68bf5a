/**
 * The per-run fold from A2A items to AG-UI events (docs/protocol.md §4.4, §7.5). Pure: it neither
 * persists nor decides how the run ends — lib/core/run does that — it only maps signals.
 */
import { agentText, type InboundItem } from '../a2a/inbound.js';
import type { JsonObject } from '../a2a/wire-types.js';
import type { OpenSpans } from '../journal/open-spans.js';
import { type AguiEvent, CUSTOM_ARTIFACT, type MakeEvent } from './events.js';
import { trailingHistoryText } from './history-text.js';
import { envelopesOf } from './pipeline/envelope.js';
import { PipelineLane } from './pipeline/pipeline-lane.js';
import { agentTextMessages, KernelTextCursor } from './text-cursor.js';
import { MAX_TEXT_DIGESTS } from './text-digests.js';
import { TextLane } from './text-lane.js';
import { ToolLane } from './tool-lane.js';
import { UsageLedger } from './usage.js';

export interface TranslatorSeed {
  make: MakeEvent;
  runId: string;
  threadId: string;
  /** Text digests stored for the current execution (resume de-duplication). */
  textDigests: readonly string[];
  pipelineSequence: number;
  pipelineOpenSteps: readonly string[];
  /** The kernel text cursor the execution reached, in characters (text-cursor.ts). */
  textChars: number;
  newId: () => string;
}

export interface ApplyOptions {
  /**
   * False when mapping a task snapshot during resume pre-flight: its status text and its pipeline
   * events are left out, its tool, thinking, usage and artifact signals kept (docs/protocol.md §5.4).
   */
  statusText: boolean;
  /**
   * With `statusText` false: a task item's history text is still mapped (the first item of a
   * subscription a run follows after an answer, docs/protocol.md §5.6).
   */
  historyText?: boolean;
}

/** The kernel's own account of a failed task: its status text and `iac_code.error.errorId` (docs/protocol.md §2.4). */
export interface FailureAccount {
  text: string | undefined;
  errorId: string | undefined;
}

/** States whose status text is the kernel's account of how the task ended, never the assistant's answer (docs/protocol.md §4.5). */
const FAILED_STATES = new Set(['failed', 'rejected', 'auth-required']);
const ENDED_STATES = new Set([...FAILED_STATES, 'canceled']);

/** What a run leaves in the thread document for the next run of the same execution. */
export interface DurableRunState {
  textDigests: string[];
  pipelineSequence: number;
  pipelineOpenSteps: string[];
  textChars: number;
}

/**
 * What the document keeps of the durable run state; documents written before issue 26 have no
 * character cursor (their `textCursor` counted messages and is not read any more).
 */
export type StoredRunState = Omit<DurableRunState, 'textChars'> & { textChars?: number | undefined };

/**
 * The translator of a run — or an observation — of an execution, seeded with what earlier runs of
 * it left durable in the thread document: text digests (docs/protocol.md §4.6), the pipeline cursor
 * and open steps (§8.2, §8.4).
 */
export function translatorFor(execution: StoredRunState, run: Omit<TranslatorSeed, keyof DurableRunState>): RunTranslator {
  return new RunTranslator({
    ...run,
    textDigests: execution.textDigests,
    pipelineSequence: execution.pipelineSequence,
    pipelineOpenSteps: execution.pipelineOpenSteps,
    textChars: execution.textChars ?? 0,
  });
}

/** Text a takeover regenerates from the task's history: one message's part after the reader's cursor (lib/core/reattach/kernel-text.ts). */
export interface RegeneratedText {
  messageId: string | undefined;
  text: string;
  isFinal: boolean;
  /** The cursor after it. */
  after: number;
}

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function errorIdOf(iac: JsonObject): string | undefined {
  const errorId = record(iac['error'])?.['errorId'];
  return typeof errorId === 'string' ? errorId : undefined;
}

export class RunTranslator {
  private readonly text: TextLane;
  private readonly tools: ToolLane;
  private readonly pipeline: PipelineLane;
  readonly usage = new UsageLedger();
  private readonly artifactsSeen = new Set<string>();
  /** The kernel text cursor: characters of the task's agent text this translator consumed (text-cursor.ts). */
  private readonly cursor: KernelTextCursor;
  /**
   * The cursor after each agent TEXT_MESSAGE_CONTENT of the last item mapped (RunSession gives every
   * event the cursor of the last one before it). Only the last item's: its events are emitted before
   * the next is mapped, and a table of every event ever made would weigh on the garbage collector.
   */
  private contentCursors = new Map<AguiEvent, number>();
  /** Set by the status that reported the task failed (docs/protocol.md §2.4, §7.7). */
  failure: FailureAccount | undefined;
  /**
   * The latest delta of the working snapshot whose history text was mapped (the first item of a
   * followed subscription, docs/protocol.md §5.6), until the next streamed text. a2a-sdk 1.1.0 taps
   * the task's events before it reads that snapshot, so a delta already saved but not yet dispatched
   * comes again as the subscription's first text; nothing on the wire tells it from a new delta.
   */
  private snapshotDelta: { messageId: string | undefined; text: string } | undefined;

  constructor(private readonly seed: TranslatorSeed) {
    this.cursor = new KernelTextCursor(seed.textChars);
    this.text = new TextLane(seed.make, seed.runId, seed.newId, seed.textDigests);
    this.tools = new ToolLane(seed.make, seed.newId);
    this.pipeline = new PipelineLane(seed.make, this.tools, this.usage, { threadId: seed.threadId, cursor: seed.pipelineSequence, openSteps: seed.pipelineOpenSteps });
  }

  /** Continues a run whose events another producer emitted, up to `textCursor` (docs/protocol.md §6.15 "Takeover"). */
  restore(spans: OpenSpans, textChars: number): void {
    this.text.restore({ messageId: spans.textMessageId, reasoningId: spans.reasoningId, emittedText: spans.agentTextEmitted });
    this.tools.restore({ started: spans.toolsStarted, open: spans.toolsOpen, resulted: spans.toolsResulted });
    this.pipeline.restore({ text: spans.pipelineText, reasoning: spans.pipelineReasoning, steps: spans.steps });
    this.cursor.chars = textChars;
  }

  /** Characters of the task's agent text consumed so far (text-cursor.ts). */
  get textCursor(): number {
    return this.cursor.chars;
  }

  /** The cursor after `event`, when it is agent text this translator made; undefined for every other event. */
  cursorAfter(event: AguiEvent): number | undefined {
    return this.contentCursors.get(event);
  }

  /** Text a takeover regenerated from the task's history (RegeneratedText). */
  applyRegenerated(item: RegeneratedText): AguiEvent[] {
    const events = this.text.text(item.messageId, item.text, item.isFinal);
    this.cursor.chars = Math.max(this.cursor.chars, item.after);
    return this.tagContent(events);
  }

  private tagContent(events: AguiEvent[]): AguiEvent[] {
    this.contentCursors = new Map();
    for (const event of events) if (event.type === 'TEXT_MESSAGE_CONTENT') this.contentCursors.set(event, this.cursor.chars);
    return events;
  }

  /** STEP_STARTED for the steps a previous run of this execution left active (docs/protocol.md §8.4). */
  reopenSteps(): AguiEvent[] {
    return this.pipeline.reopenSteps();
  }

  /** Maps a `/iac-code/pipeline/state` answer as recovery (docs/protocol.md §8.6). */
  recover(state: JsonObject): AguiEvent[] {
    return this.pipeline.recover(state);
  }

  get pipelineCursor(): number {
    return this.pipeline.cursor;
  }

  apply(item: InboundItem, options: ApplyOptions = { statusText: true }): AguiEvent[] {
    if (item.kind === 'task') this.cursor.catchUp(agentTextMessages(item));
    else if (item.kind === 'statusUpdate') {
      const text = agentText(item.statusMessage);
      if (text !== undefined) this.cursor.feed(item.statusMessage?.messageId || undefined, text);
    }
    const events: AguiEvent[] = [];
    const { iac } = item;
    const thinking = record(iac['thinking']);
    if (thinking?.['type'] === 'raw_thinking' && typeof thinking['text'] === 'string' && thinking['text']) {
      events.push(...this.text.reasoning(thinking['text']));
    }
    const repeatsSnapshot = this.repeatsSnapshotDelta(item);
    if (options.statusText) {
      if (!repeatsSnapshot) events.push(...this.tagContent(this.mapText(item)));
    } else if (options.historyText) {
      const status = agentText(item.statusMessage);
      if (item.kind === 'task' && !this.text.emittedText && status !== undefined) this.snapshotDelta = { messageId: item.statusMessage?.messageId || undefined, text: status };
      events.push(...this.tagContent(this.mapHistory(item, true)));
    }
    const tool = record(iac['tool']);
    if (tool) {
      if (tool['status'] === 'started' || tool['status'] === 'input_complete') this.text.rememberCurrentText();
      events.push(...this.tools.apply(tool, this.text.currentMessageId));
    }
    if (iac['usage'] !== undefined) this.usage.add(iac['usage']);
    if (options.statusText) for (const envelope of envelopesOf(iac)) events.push(...this.pipeline.live(envelope));
    for (const artifact of item.artifacts) events.push(...this.mapArtifact(artifact));
    return events;
  }

  /** A TOOL_CALL_RESULT for an answered question (docs/protocol.md §5.6). */
  toolResult(toolCallId: string, content: string): AguiEvent[] {
    return this.tools.result(toolCallId, content);
  }

  /** Closes reasoning, tool, text and step spans, in that order (docs/protocol.md §4.3). */
  closeSpans(): AguiEvent[] {
    return [
      ...this.text.closeReasoning(),
      ...this.pipeline.closeReasoning(),
      ...this.tools.closeAll(),
      ...this.text.closeText(),
      ...this.pipeline.closeText(),
      ...this.pipeline.closeSteps(),
    ];
  }

  /** Records the open message's text so far (before an interrupt commit). */
  rememberText(): void {
    this.text.rememberCurrentText();
  }

  durableState(): DurableRunState {
    return {
      textDigests: this.text.digestList().slice(-MAX_TEXT_DIGESTS),
      pipelineSequence: this.pipeline.cursor,
      pipelineOpenSteps: this.pipeline.openSteps(),
      textChars: this.cursor.chars,
    };
  }

  /**
   * Whether this item is the subscription's re-dispatch of the snapshot's latest delta (snapshotDelta):
   * the first status update with text after that snapshot, the same message id and the same text.
   */
  private repeatsSnapshotDelta(item: InboundItem): boolean {
    const seen = this.snapshotDelta;
    if (seen === undefined || item.kind !== 'statusUpdate') return false;
    const text = agentText(item.statusMessage);
    if (text === undefined) return false;
    this.snapshotDelta = undefined;
    return text === seen.text && (item.statusMessage?.messageId || undefined) === seen.messageId;
  }

  private mapText(item: InboundItem): AguiEvent[] {
    const status = agentText(item.statusMessage);
    if (item.state && ENDED_STATES.has(item.state)) {
      // "Task canceled.", or why the task failed: the RUN_ERROR reports it (docs/protocol.md §2.4, §4.5).
      if (FAILED_STATES.has(item.state)) this.failure = { text: status ?? this.failure?.text, errorId: errorIdOf(item.iac) ?? this.failure?.errorId };
      return [];
    }
    if (status !== undefined) {
      const isFinal = record(item.iac['assistantFinal'])?.['complete'] === true;
      return this.text.text(item.statusMessage?.messageId || undefined, status, isFinal);
    }
    return this.mapHistory(item, false);
  }

  /**
   * History is read only from a task without status text, before any text of this run (docs/protocol.md §4.5).
   * `withStatus`: a working snapshot's status message is its latest delta, the history's next entry.
   */
  private mapHistory(item: InboundItem, withStatus: boolean): AguiEvent[] {
    if (item.kind !== 'task' || this.text.emittedText) return [];
    const history = trailingHistoryText(withStatus && item.statusMessage ? [...item.history, item.statusMessage] : item.history);
    return history ? this.text.text(history.messageId || undefined, history.text, false) : [];
  }

  private mapArtifact(artifact: JsonObject): AguiEvent[] {
    const id = typeof artifact['artifactId'] === 'string' ? artifact['artifactId'] : undefined;
    if (id !== undefined) {
      if (this.artifactsSeen.has(id)) return [];
      this.artifactsSeen.add(id);
    }
    return [this.seed.make('CUSTOM', { name: CUSTOM_ARTIFACT, value: { schemaVersion: 1, ...artifact } })];
  }
}
