/**
 * Pipeline envelopes → standard AG-UI events, step lifecycle and the CUSTOM `iac-code.pipeline.v1`
 * event (docs/protocol.md §8), and recovery from `/iac-code/pipeline/state` (docs/protocol.md §8.6).
 *
 * Replays are de-duplicated by eventId and sequence (docs/protocol.md §8.2). Steps still active when a run ends
 * are finished for that run but stay in the durable open set, and the next run of the execution
 * reopens them — so every span is closed before RUN_FINISHED while the pipeline goes on.
 */
import type { JsonObject } from '../../a2a/wire-types.js';
import { type AguiEvent, CUSTOM_PIPELINE, type MakeEvent } from '../events.js';
import type { ToolLane } from '../tool-lane.js';
import type { UsageLedger } from '../usage.js';
import { CUSTOM_PIPELINE_TYPES, pipelineMessageId, STEP_CLOSERS, STEP_OPENERS, stepKey, stepName } from './envelope.js';
import { pipelineReasoningId } from './message-ids.js';

export interface PipelineSeed {
  threadId: string;
  /** The persisted cursor: the highest sequence applied so far in this execution. */
  cursor: number;
  /** Steps still active in the pipeline (durable across runs). */
  openSteps: readonly string[];
}

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function sequenceOf(envelope: JsonObject): number {
  const sequence = envelope['sequence'];
  return typeof sequence === 'number' && Number.isFinite(sequence) ? sequence : 0;
}

export class PipelineLane {
  cursor: number;
  private runHighest = 0;
  private readonly seenEventIds = new Set<string>();
  private readonly durable: Set<string>;
  private readonly startedInRun = new Set<string>();
  private readonly openText = new Set<string>();
  private readonly openReasoning = new Set<string>();
  private pipelineRunId: string;

  constructor(
    private readonly make: MakeEvent,
    private readonly tools: ToolLane,
    private readonly usage: UsageLedger,
    seed: PipelineSeed,
  ) {
    this.cursor = seed.cursor;
    this.durable = new Set(seed.openSteps);
    this.pipelineRunId = `pipeline-${seed.threadId}`;
  }

  /** Continues a run whose events another producer emitted (docs/protocol.md §6.15 "Takeover"); steps by name. */
  restore(spans: { text: readonly string[]; reasoning: readonly string[]; steps: readonly string[] }): void {
    for (const id of spans.text) this.openText.add(id);
    for (const id of spans.reasoning) this.openReasoning.add(id);
    for (const name of spans.steps) this.startedInRun.add(name.startsWith('candidate:') ? name : `step:${name}`);
  }

  /** STEP_STARTED for every step a previous run left active, sorted by key (docs/protocol.md §8.4). */
  reopenSteps(): AguiEvent[] {
    return [...this.durable].sort().flatMap((key) => this.start(key));
  }

  /** A live envelope: skipped when its eventId was seen or its sequence is not past this run's highest. */
  live(envelope: JsonObject): AguiEvent[] {
    const eventId = typeof envelope['eventId'] === 'string' ? envelope['eventId'] : undefined;
    const sequence = sequenceOf(envelope);
    if (eventId && this.seenEventIds.has(eventId)) return [];
    if (sequence > 0 && sequence <= this.runHighest) return [];
    return this.applyEnvelope(envelope, eventId, sequence);
  }

  /**
   * A `/iac-code/pipeline/state` answer: one ACTIVITY_SNAPSHOT, then its events — an event with an
   * eventId is applied even below the cursor (it fills a gap), one without is skipped there.
   */
  recover(state: JsonObject): AguiEvent[] {
    const snapshot = record(state['snapshot']);
    if (!snapshot) return [];
    if (typeof snapshot['pipelineRunId'] === 'string' && snapshot['pipelineRunId']) this.pipelineRunId = snapshot['pipelineRunId'];
    const events: AguiEvent[] = [
      this.make('ACTIVITY_SNAPSHOT', {
        messageId: `pipeline:${this.pipelineRunId}`,
        activityType: CUSTOM_PIPELINE,
        content: { schemaVersion: 1, pipelineRunId: this.pipelineRunId, snapshot },
        replace: true,
      }),
    ];
    const envelopes = Array.isArray(state['events']) ? state['events'] : [];
    for (const candidate of envelopes) {
      const envelope = record(candidate);
      if (!envelope) continue;
      const eventId = typeof envelope['eventId'] === 'string' ? envelope['eventId'] : undefined;
      const sequence = sequenceOf(envelope);
      if (eventId ? this.seenEventIds.has(eventId) : sequence <= this.cursor) continue;
      events.push(...this.applyEnvelope(envelope, eventId, sequence));
    }
    const last = snapshot['lastSequence'];
    if (typeof last === 'number' && last > this.cursor) this.cursor = last;
    return events;
  }

  closeReasoning(): AguiEvent[] {
    const events = [...this.openReasoning].flatMap((id) => [this.make('REASONING_MESSAGE_END', { messageId: id }), this.make('REASONING_END', { messageId: id })]);
    this.openReasoning.clear();
    return events;
  }

  closeText(): AguiEvent[] {
    const events = [...this.openText].map((id) => this.make('TEXT_MESSAGE_END', { messageId: id }));
    this.openText.clear();
    return events;
  }

  /** Finishes this run's steps (sorted by key); the durable set keeps them for the next run. */
  closeSteps(): AguiEvent[] {
    const events = [...this.startedInRun].sort().map((key) => this.make('STEP_FINISHED', { stepName: stepName(key) }));
    this.startedInRun.clear();
    return events;
  }

  openSteps(): string[] {
    return [...this.durable].sort();
  }

  private applyEnvelope(envelope: JsonObject, eventId: string | undefined, sequence: number): AguiEvent[] {
    if (eventId) this.seenEventIds.add(eventId);
    if (sequence > this.runHighest) this.runHighest = sequence;
    if (sequence > this.cursor) this.cursor = sequence;
    const type = typeof envelope['eventType'] === 'string' ? envelope['eventType'] : '';
    const events = [...this.standard(type, envelope), ...this.stepLifecycle(type, envelope)];
    if (CUSTOM_PIPELINE_TYPES.has(type)) events.push(this.make('CUSTOM', { name: CUSTOM_PIPELINE, value: envelope }));
    return events;
  }

  /** text, thinking, tool and usage signals have standard events and are never CUSTOM (docs/protocol.md §8.5). */
  private standard(type: string, envelope: JsonObject): AguiEvent[] {
    const data = record(envelope['data']) ?? {};
    const messageId = pipelineMessageId(this.pipelineRunId, envelope);
    switch (type) {
      case 'text_delta':
        return typeof data['text'] === 'string' && data['text'] ? this.text(messageId, data['text']) : [];
      case 'thinking_delta':
        return typeof data['text'] === 'string' && data['text'] ? this.reasoning(pipelineReasoningId(messageId), data['text']) : [];
      case 'tool_started':
        return this.tools.apply({ status: 'input_complete', toolUseId: data['toolUseId'], name: data['toolName'], toolInput: data['input'] ?? {} }, undefined);
      case 'tool_result':
        return this.tools.apply(
          { status: data['isError'] === true ? 'failed' : 'completed', toolUseId: data['toolUseId'], name: data['toolName'], result: data['result'] },
          undefined,
        );
      case 'usage':
        this.usage.add(data);
        return [];
      default:
        return [];
    }
  }

  private stepLifecycle(type: string, envelope: JsonObject): AguiEvent[] {
    const key = stepKey(envelope);
    if (!key) return [];
    if (STEP_OPENERS.has(type)) {
      this.durable.add(key);
      return this.start(key);
    }
    if (STEP_CLOSERS.has(type) && this.durable.has(key)) {
      const events = this.start(key);
      this.durable.delete(key);
      this.startedInRun.delete(key);
      events.push(this.make('STEP_FINISHED', { stepName: stepName(key) }));
      return events;
    }
    return [];
  }

  private start(key: string): AguiEvent[] {
    if (this.startedInRun.has(key)) return [];
    this.startedInRun.add(key);
    return [this.make('STEP_STARTED', { stepName: stepName(key) })];
  }

  /** Pipeline messages run in parallel (candidates): each keeps its own open text span. */
  private text(messageId: string, delta: string): AguiEvent[] {
    const events: AguiEvent[] = [];
    const reasoningId = pipelineReasoningId(messageId);
    if (this.openReasoning.delete(reasoningId)) {
      events.push(this.make('REASONING_MESSAGE_END', { messageId: reasoningId }), this.make('REASONING_END', { messageId: reasoningId }));
    }
    if (!this.openText.has(messageId)) {
      this.openText.add(messageId);
      events.push(this.make('TEXT_MESSAGE_START', { messageId, role: 'assistant' }));
    }
    events.push(this.make('TEXT_MESSAGE_CONTENT', { messageId, delta }));
    return events;
  }

  private reasoning(id: string, delta: string): AguiEvent[] {
    const events: AguiEvent[] = [];
    if (!this.openReasoning.has(id)) {
      this.openReasoning.add(id);
      events.push(this.make('REASONING_START', { messageId: id }), this.make('REASONING_MESSAGE_START', { messageId: id, role: 'reasoning' }));
    }
    events.push(this.make('REASONING_MESSAGE_CONTENT', { messageId: id, delta }));
    return events;
  }
}
