/**
 * What a prompt-style answer sends and shows (docs/protocol.md §5.3, §5.6): the one text part for
 * the kernel, and the content of the TOOL_CALL_RESULT of the interrupt's tool call — the answer
 * text for a question; for a resource selection the prefixed JSON, and the label (or value) only
 * when something was selected.
 */

import { chosenSelection, isResourceSelection, resourceSelectionText, type SelectionIds } from './resource-selection.js';
import type { Answer } from './resume-plan.js';

export interface PromptAnswer {
  text: string;
  /** TOOL_CALL_RESULT content; undefined: no result (a canceled selection). */
  toolResult: string | undefined;
}

export function promptAnswer(answer: Answer, ids: SelectionIds): PromptAnswer {
  if (!isResourceSelection(answer.pending.input)) return { text: answer.text as string, toolResult: answer.text };
  const selected = answer.entry.status === 'resolved';
  return { text: resourceSelectionText(answer.pending, answer.entry, ids), toolResult: selected ? chosenSelection(answer.entry.payload).label : undefined };
}
