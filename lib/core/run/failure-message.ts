/**
 * The `message` of a RUN_ERROR (docs/protocol.md §2.4, §2.5): the adapter's own sentence for the
 * code, in the request's language — and, when the kernel said why it failed the task, that sentence
 * framed around the kernel's reason and error id, which are quoted as the kernel wrote them (after
 * kernel-reason.ts made them safe), never translated.
 */
import { type Language, translate } from '../i18n/catalogue.js';
import type { RunFailure } from './run-failure.js';

/** `{name}` in a catalogue sentence replaced by `value` taken literally (a reason may hold `$&` or braces). */
function fill(template: string, name: string, value: string): string {
  return template.split(`{${name}}`).join(value);
}

export function failureMessage(failure: RunFailure, language: Language): string {
  const reason = failure.kernelReason;
  if (!reason || failure.code !== 'A2A_EXECUTION_FAILED') return translate(failure.messageKey, language);
  const sentence = reason.text ? fill(translate('a2aExecutionFailedBecause', language), 'reason', reason.text) : translate(failure.messageKey, language);
  return reason.errorId ? sentence + fill(translate('kernelErrorId', language), 'errorId', reason.errorId) : sentence;
}
