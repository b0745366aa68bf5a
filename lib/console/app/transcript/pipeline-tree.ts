/**
 * The pipeline panel (docs/architecture.md §4.7): the execution's PipelineModel drawn as nested lists — steps, their
 * candidates with state and streamed text, each candidate's steps — redrawn whole on each change
 * (a handful of nodes). States are words, not only colours.
 *
 * The panel follows one execution (its runs and resumes, docs/protocol.md §8). A new turn starts a
 * new one, so the panel's last picture is left in the transcript where that turn begins and the
 * panel starts empty (`archive`).
 */
import { el } from '../dom.js';
import type { EventRecord } from './event-fields.js';
import { type CandidateNode, type NodeState, PipelineModel } from './pipeline-model.js';

const STATE_WORDS: Record<NodeState, string> = {
  running: 'running',
  waiting: 'waiting for your answer',
  paused: 'paused',
  completed: 'completed',
  failed: 'failed',
  interrupted: 'interrupted',
  selected: 'selected',
};

function badge(state: NodeState | string): HTMLElement {
  return el('span', { class: 'badge', 'data-state': state, text: STATE_WORDS[state as NodeState] ?? state });
}

export class PipelineTree {
  private current = new PipelineModel();
  readonly root: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly body: HTMLElement;

  constructor() {
    this.heading = el('h2', { id: 'pipeline-heading', text: 'Pipeline' });
    this.body = el('div', { class: 'pipeline-body' });
    this.root = el('section', { class: 'pipeline', 'aria-labelledby': 'pipeline-heading', hidden: true }, this.heading, this.body);
  }

  get model(): PipelineModel {
    return this.current;
  }

  /** A still picture of the panel for the transcript (undefined when no pipeline ran); the panel starts over. */
  archive(): HTMLElement | undefined {
    if (!this.current.visible) return undefined;
    const picture = el('div', { class: 'pipeline pipeline-snapshot', role: 'group', 'aria-label': 'Pipeline of an earlier turn' });
    for (const child of this.root.children) picture.append(child.cloneNode(true));
    for (const withId of picture.querySelectorAll('[id]')) withId.removeAttribute('id');
    this.current = new PipelineModel();
    this.body.replaceChildren();
    this.root.hidden = true;
    return picture;
  }

  apply(event: EventRecord): void {
    if (this.model.apply(event)) this.render();
  }

  markWaiting(candidateIds: readonly string[]): void {
    if (this.model.markWaiting(candidateIds)) this.render();
  }

  /** Candidate text goes into its node; returns false when no candidate claims the message. */
  appendText(messageId: string, delta: string): boolean {
    const candidate = this.model.candidateForMessage(messageId);
    if (!candidate) return false;
    candidate.text += delta;
    this.render();
    return true;
  }

  private render(): void {
    const { model } = this;
    this.root.hidden = !model.visible;
    this.heading.replaceChildren(`Pipeline ${model.name ?? ''} `, badge(model.status));
    const steps = [...model.steps.values()].map((step) =>
      el(
        'li',
        { class: 'pipeline-step', 'data-step': step.id, 'data-state': step.state },
        el('span', { class: 'node-name', text: step.id }),
        ' ',
        badge(step.state),
        step.candidates.size > 0 ? el('ul', { class: 'candidates' }, ...[...step.candidates.values()].map(candidateItem)) : null,
      ),
    );
    const notes = model.notes.length > 0 ? el('ul', { class: 'pipeline-notes', 'aria-label': 'Pipeline events' }, ...model.notes.map((note) => el('li', { text: note }))) : null;
    this.body.replaceChildren(el('ul', { class: 'pipeline-steps', 'aria-label': 'Steps' }, ...steps), notes ?? '');
  }
}

function candidateItem(candidate: CandidateNode): HTMLElement {
  const steps = [...candidate.steps.values()].map((step) =>
    el('li', { class: 'candidate-step', 'data-state': step.state }, el('span', { class: 'node-name', text: step.id }), ' ', badge(step.state)),
  );
  return el(
    'li',
    { class: 'candidate', 'data-candidate': candidate.id, 'data-state': candidate.state },
    el('span', { class: 'node-name', text: candidate.name === candidate.id ? candidate.id : `${candidate.name} (${candidate.id})` }),
    ' ',
    badge(candidate.state),
    steps.length > 0 ? el('ul', { class: 'candidate-steps' }, ...steps) : null,
    candidate.text ? el('p', { class: 'candidate-text', text: candidate.text }) : null,
  );
}
