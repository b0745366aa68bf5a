/**
 * The live pipeline of a thread as a tree of steps and candidates (docs/protocol.md §8), folded
 * from the AG-UI events the adapter emits for it — no DOM here, so it is unit-tested on its own:
 *
 * - STEP_STARTED / STEP_FINISHED name parent steps by their id and candidate steps as
 *   `candidate:<candidate id>:<step id>`;
 * - CUSTOM iac-code.pipeline.v1 carries the envelopes with states (candidate_started,
 *   candidate_completed, pipeline_completed, …) and where each candidate belongs;
 * - ACTIVITY_SNAPSHOT (activityType iac-code.pipeline.v1) gives the pipeline's name and status
 *   when a resume recovers it.
 *
 * A run closes every open step before it ends and the next run reopens the ones still active
 * (docs/protocol.md §4), so a STEP_FINISHED right before the terminal event means "paused", not
 * "completed": it only counts as completed once more of the stream follows it.
 */
import { type EventRecord, num, obj, str } from './event-fields.js';

export type NodeState = 'running' | 'waiting' | 'paused' | 'completed' | 'failed' | 'interrupted' | 'selected';

export interface StepNode {
  id: string;
  state: NodeState;
}

export interface CandidateNode {
  id: string;
  name: string;
  runId: string | undefined;
  state: NodeState;
  steps: Map<string, StepNode>;
  /** Text the candidate streamed. */
  text: string;
}

export interface ParentStepNode {
  id: string;
  state: NodeState;
  candidates: Map<string, CandidateNode>;
}

const CANDIDATE_STATES: Record<string, NodeState> = {
  candidate_started: 'running',
  candidate_completed: 'completed',
  candidate_failed: 'failed',
  candidate_interrupted: 'interrupted',
  candidate_selected: 'selected',
  candidate_restart_requested: 'running',
};

const PIPELINE_STATES: Record<string, string> = {
  pipeline_started: 'running',
  pipeline_resumed: 'running',
  pipeline_completed: 'completed',
  pipeline_error: 'failed',
};

/** A key of STEP_* events: the parent step's id, or the candidate and its step. */
function parseStepName(stepName: string): { candidateId?: string; stepId: string } {
  if (!stepName.startsWith('candidate:')) return { stepId: stepName };
  const rest = stepName.slice('candidate:'.length);
  const split = rest.lastIndexOf(':');
  return split < 0 ? { stepId: rest } : { candidateId: rest.slice(0, split), stepId: rest.slice(split + 1) };
}

/** Where an unplaced candidate goes until an envelope names its parent step. */
const LOOSE = '(candidates)';

export class PipelineModel {
  name: string | undefined;
  status = 'running';
  readonly steps = new Map<string, ParentStepNode>();
  /** Other pipeline events worth a line (stack progress, warnings…), newest last. */
  readonly notes: string[] = [];
  /** STEP_FINISHED seen, not yet followed by anything but the end of the run. */
  private readonly finishing = new Set<string>();

  /** Whether the thread has a pipeline to show at all. */
  get visible(): boolean {
    return this.steps.size > 0 || this.name !== undefined;
  }

  /** Folds one event; returns whether the tree changed. */
  apply(event: EventRecord): boolean {
    const { type } = event;
    if (type === 'RUN_FINISHED' || type === 'RUN_ERROR') return this.endOfRun();
    if (type === 'RUN_STARTED') return this.resumeWaiting();
    if (type !== 'STEP_FINISHED') this.commitFinishing();
    switch (type) {
      case 'STEP_STARTED':
        return this.stepStarted(str(event, 'stepName') ?? '');
      case 'STEP_FINISHED':
        return this.stepFinished(str(event, 'stepName') ?? '');
      case 'ACTIVITY_SNAPSHOT':
        return this.snapshot(event);
      case 'CUSTOM':
        return str(event, 'name') === 'iac-code.pipeline.v1' ? this.envelope(obj(event, 'value') ?? {}) : false;
      default:
        return false;
    }
  }

  /** Candidates a pending interrupt belongs to (by `metadata.subPipelineId`) wait for the person. */
  markWaiting(candidateIds: readonly string[]): boolean {
    let changed = false;
    for (const candidate of this.candidates()) {
      if (candidateIds.includes(candidate.id) && candidate.state !== 'waiting') {
        candidate.state = 'waiting';
        changed = true;
      }
    }
    return changed;
  }

  /** The candidate whose run id appears in a pipeline text message id (`pipeline-message:<P>:<scope>:<run ids>`). */
  candidateForMessage(messageId: string): CandidateNode | undefined {
    if (!messageId.startsWith('pipeline-message:')) return undefined;
    const parts = messageId.split(':');
    return this.candidates().find((candidate) => candidate.runId !== undefined && parts.includes(candidate.runId));
  }

  candidates(): CandidateNode[] {
    return [...this.steps.values()].flatMap((step) => [...step.candidates.values()]);
  }

  private parent(id: string): ParentStepNode {
    let step = this.steps.get(id);
    if (!step) {
      step = { id, state: 'running', candidates: new Map() };
      this.steps.set(id, step);
    }
    return step;
  }

  private candidate(id: string, parentId?: string): CandidateNode {
    const existing = this.candidates().find((candidate) => candidate.id === id);
    if (existing) {
      // A candidate first seen without its parent moves under it once an envelope names it.
      if (parentId && !this.parent(parentId).candidates.has(id)) {
        this.steps.get(LOOSE)?.candidates.delete(id);
        if (this.steps.get(LOOSE)?.candidates.size === 0) this.steps.delete(LOOSE);
        this.parent(parentId).candidates.set(id, existing);
      }
      return existing;
    }
    const created: CandidateNode = { id, name: id, runId: undefined, state: 'running', steps: new Map(), text: '' };
    this.parent(parentId ?? LOOSE).candidates.set(id, created);
    return created;
  }

  private stepStarted(stepName: string): boolean {
    this.finishing.delete(stepName);
    const { candidateId, stepId } = parseStepName(stepName);
    if (!candidateId) {
      this.parent(stepId).state = 'running';
      return true;
    }
    const candidate = this.candidate(candidateId);
    candidate.steps.set(stepId, { id: stepId, state: 'running' });
    if (candidate.state === 'paused' || candidate.state === 'waiting') candidate.state = 'running';
    return true;
  }

  private stepFinished(stepName: string): boolean {
    this.finishing.add(stepName);
    return false;
  }

  private setStepState(stepName: string, state: NodeState): void {
    const { candidateId, stepId } = parseStepName(stepName);
    if (!candidateId) {
      const step = this.steps.get(stepId);
      if (step) step.state = state;
      return;
    }
    const step = this.candidates()
      .find((candidate) => candidate.id === candidateId)
      ?.steps.get(stepId);
    if (step) step.state = state;
  }

  private commitFinishing(): void {
    for (const stepName of this.finishing) this.setStepState(stepName, 'completed');
    this.finishing.clear();
  }

  private endOfRun(): boolean {
    const state: NodeState = this.status === 'completed' ? 'completed' : 'paused';
    const changed = this.finishing.size > 0;
    for (const stepName of this.finishing) this.setStepState(stepName, state);
    this.finishing.clear();
    return changed;
  }

  private resumeWaiting(): boolean {
    let changed = false;
    for (const candidate of this.candidates()) {
      if (candidate.state === 'waiting') {
        candidate.state = 'running';
        changed = true;
      }
    }
    return changed;
  }

  private snapshot(event: EventRecord): boolean {
    if (str(event, 'activityType') !== 'iac-code.pipeline.v1') return false;
    const snapshot = obj(obj(event, 'content'), 'snapshot');
    this.name = str(snapshot, 'pipelineName') ?? this.name ?? 'pipeline';
    this.status = str(snapshot, 'status') ?? this.status;
    return true;
  }

  private envelope(envelope: Record<string, unknown>): boolean {
    const eventType = str(envelope, 'eventType') ?? '';
    this.name ??= str(envelope, 'pipelineName') ?? 'pipeline';
    const pipelineState = PIPELINE_STATES[eventType];
    if (pipelineState) {
      this.status = pipelineState;
      return true;
    }
    const candidateState = CANDIDATE_STATES[eventType];
    const coordinates = obj(envelope, 'candidate');
    const id = str(coordinates, 'id') ?? str(coordinates, 'subPipelineId') ?? str(coordinates, 'runId');
    if (candidateState && id) {
      const candidate = this.candidate(id, str(obj(envelope, 'step'), 'id'));
      candidate.state = candidateState;
      candidate.name = str(coordinates, 'name') ?? candidate.name;
      candidate.runId = str(coordinates, 'runId') ?? candidate.runId;
      return true;
    }
    if (eventType === 'step_failed' || eventType === 'candidate_step_failed' || eventType === 'sub_step_failed') {
      const stepId = str(obj(envelope, 'candidateStep'), 'id') ?? str(obj(envelope, 'step'), 'id');
      if (stepId) this.setStepState(id ? `candidate:${id}:${stepId}` : stepId, 'failed');
      return true;
    }
    this.notes.push(noteOf(eventType, obj(envelope, 'data')));
    if (this.notes.length > 8) this.notes.shift();
    return true;
  }
}

/** "stack progress: vpc-a 50%" from an envelope's type and a couple of its data fields. */
function noteOf(eventType: string, data: Record<string, unknown> | undefined): string {
  const words = eventType.replace(/_/g, ' ');
  const stack = str(data, 'stack');
  const progress = num(data, 'progress');
  const message = str(data, 'message');
  const parts = [stack, progress !== undefined ? `${Math.round(progress * 100)}%` : undefined, message].filter(Boolean);
  return parts.length > 0 ? `${words}: ${parts.join(' ')}` : words;
}
