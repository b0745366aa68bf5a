/**
 * The words around an interrupt's generated form, by its kind (docs/protocol.md §5.2, §5.8): the
 * card's title, what its cancel control does — which differs a lot by kind — and labels for the
 * fields and branches of the responseSchema where the schema itself has no title.
 *
 * - a permission has Deny among its answers (a cancelled permission is a deny), so no cancel;
 * - a question, a candidate selection or any other prompt answered "cancelled" cancels the whole
 *   execution, so its control says so;
 * - a cloud resource selection answered "cancelled" only skips the choice — the run goes on.
 */
import { humanize } from './schema-model.js';

export interface KindWords {
  title: string;
  /** The cancel control's label and the line under it, or undefined for none. */
  cancel?: { label: string; hint: string };
  /** Labels by field name, and branch legends by `branch:<field names joined with +>` (schema-model.ts). */
  labels: Record<string, string>;
  /** The answer that is safe to give by accident: the form's first focus, so a stray Enter never approves. */
  safeAnswer?: string;
}

const CANCELS_RUN = { label: 'Cancel the run instead', hint: 'Cancelling this request stops the whole run.' };

export function wordsFor(reason: string, kind: unknown): KindWords {
  if (reason === 'tool_call' || kind === 'permission') return { title: 'Permission needed', labels: {}, safeAnswer: 'deny' };
  switch (kind) {
    case 'ask_user_question':
      return { title: 'Question', cancel: CANCELS_RUN, labels: {} };
    case 'candidate_selection':
      return { title: 'Choose a candidate', cancel: CANCELS_RUN, labels: {} };
    case 'cloud_resource_selection':
      return {
        title: 'Choose a cloud resource',
        cancel: { label: 'Skip this selection', hint: 'The run goes on without a resource from your account.' },
        labels: {
          value: 'Resource id or value',
          label: 'Display name',
          freeText: 'Describe the resource',
          'branch:value+label': 'Enter the resource',
          'branch:freeText': 'Or describe it in words',
        },
      };
    default:
      return { title: typeof kind === 'string' && kind ? humanize(kind) : 'Input needed', cancel: CANCELS_RUN, labels: {} };
  }
}
