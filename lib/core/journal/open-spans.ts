/**
 * What a run left open, read from the events it emitted (docs/protocol.md §6.15 "Takeover"): a
 * takeover continues the run with a translator that knows them, so that it never opens a span twice
 * and closes every one at the end, as the run would have (docs/protocol.md §4.3); the sweeper
 * closes them with the same translator (`RunTranslator.restore`, `closeSpans`).
 */
import { type AguiEvent, CUSTOM_SESSION } from '../translate/events.js';
import { isPipelineReasoning, isPipelineText } from '../translate/pipeline/message-ids.js';
import { type SpanKind, spanOf } from '../translate/spans.js';
import type { Canonical } from './canonical.js';

export interface OpenSpans {
  /** The agent text message left open, if any. */
  textMessageId: string | undefined;
  /** Agent text was emitted in the run (a final answer repeating it is then ignored). */
  agentTextEmitted: boolean;
  /** The agent reasoning left open, if any. */
  reasoningId: string | undefined;
  toolsStarted: string[];
  toolsOpen: string[];
  toolsResulted: string[];
  pipelineText: string[];
  pipelineReasoning: string[];
  /** Step names started in the run and not finished. */
  steps: string[];
  sessionEmitted: boolean;
}

/**
 * Whether the journal's newest run is `runId`'s and still open: its last `RUN_STARTED` names it and
 * no run end follows. A start that an end follows is an earlier run's — a resume may reuse the
 * interrupted run's runId (docs/protocol.md §6.2) — so the run taken over had journaled nothing.
 */
export function runStartJournaled(order: Canonical, runId: string): boolean {
  const at = order.entries.findLastIndex((entry) => entry.event.type === 'RUN_STARTED');
  const start = order.entries[at]?.event;
  if (start?.type !== 'RUN_STARTED' || start.runId !== runId) return false;
  return !order.entries.slice(at + 1).some((entry) => entry.event.type === 'RUN_FINISHED' || entry.event.type === 'RUN_ERROR');
}

/** The spans the journal's newest run (from its last `RUN_STARTED`) leaves open. */
export function openSpansOfLastRun(order: Canonical): OpenSpans {
  const runStart = order.entries.findLastIndex((entry) => entry.event.type === 'RUN_STARTED');
  return openSpans(order.entries.slice(Math.max(0, runStart)).map((entry) => entry.event));
}

/** The spans `events` (one run's, in order) leave open. */
export function openSpans(events: readonly AguiEvent[]): OpenSpans {
  const text = new Set<string>();
  const reasoning = new Set<string>();
  const started = new Set<string>();
  const open = new Set<string>();
  const resulted = new Set<string>();
  const steps = new Set<string>();
  let agentTextEmitted = false;
  let sessionEmitted = false;
  // Span sets by kind (the span table, lib/core/translate/spans.ts), in the order each opened.
  const sets: Record<SpanKind, Set<string>> = {
    text,
    reasoning,
    'reasoning-message': new Set<string>(),
    tool: open,
    'tool-result': resulted,
    step: steps,
  };
  for (const event of events) {
    const span = spanOf(event);
    if (span) {
      if (span.opens) sets[span.kind].add(span.id);
      else sets[span.kind].delete(span.id);
      if (span.kind === 'tool' && span.opens) started.add(span.id);
      // A result ends its call as far as a takeover cares: nothing more of it will be emitted.
      if (span.kind === 'tool-result') open.delete(span.id);
      continue;
    }
    if (event.type === 'TEXT_MESSAGE_CONTENT' && !isPipelineText(event.messageId)) agentTextEmitted = true;
    if (event.type === 'CUSTOM' && event.name === CUSTOM_SESSION) sessionEmitted = true;
  }
  const agentText = [...text].filter((id) => !isPipelineText(id));
  const agentReasoning = [...reasoning].filter((id) => !isPipelineReasoning(id));
  return {
    textMessageId: agentText.at(-1),
    agentTextEmitted,
    reasoningId: agentReasoning.at(-1),
    toolsStarted: [...started],
    toolsOpen: [...open],
    toolsResulted: [...resulted],
    pipelineText: [...text].filter(isPipelineText),
    pipelineReasoning: [...reasoning].filter(isPipelineReasoning),
    steps: [...steps],
    sessionEmitted,
  };
}
