/**
 * A task's pipeline as the iac-code kernel records it (docs/protocol.md §8.2): envelopes with eventId and
 * a monotonic sequence, kept in a log that `/iac-code/pipeline/state` serves after a cursor
 * (docs/protocol.md §7.9, §8.6) — including events produced while no client was listening.
 */
import { randomUUID } from 'node:crypto';
import type { Json } from './task-script.js';

export const PIPELINE_EXTENSION_URI = 'https://iac-code.dev/a2a/extensions/pipeline/v1';

export interface EnvelopeFields {
  scope: 'pipeline' | 'step' | 'candidate' | 'candidate_step' | 'stack';
  data?: Json;
  status?: string;
  step?: Json;
  candidate?: Json;
  candidateStep?: Json;
}

export class PipelineLog {
  readonly events: Json[] = [];
  private sequence = 0;
  status = 'working';

  constructor(
    readonly pipelineRunId: string,
    readonly pipelineName: string,
    private readonly taskId: string,
    private readonly contextId: string,
  ) {}

  record(eventType: string, fields: EnvelopeFields): Json {
    this.sequence += 1;
    const envelope: Json = {
      schemaVersion: 1,
      extensionUri: PIPELINE_EXTENSION_URI,
      eventId: `evt-${randomUUID().replace(/-/g, '')}`,
      sequence: this.sequence,
      createdAt: new Date().toISOString(),
      eventType,
      scope: fields.scope,
      pipelineRunId: this.pipelineRunId,
      taskId: this.taskId,
      contextId: this.contextId,
      pipelineName: this.pipelineName,
      status: fields.status ?? 'working',
      data: fields.data ?? {},
    };
    for (const key of ['step', 'candidate', 'candidateStep'] as const) if (fields[key]) envelope[key] = fields[key];
    this.events.push(envelope);
    return envelope;
  }

  /** The `/iac-code/pipeline/state` answer after `afterSequence`. */
  state(afterSequence: number): Json {
    return {
      snapshot: { pipelineRunId: this.pipelineRunId, pipelineName: this.pipelineName, status: this.status, lastSequence: this.sequence },
      events: this.events.filter((event) => (event['sequence'] as number) > afterSequence),
    };
  }
}
