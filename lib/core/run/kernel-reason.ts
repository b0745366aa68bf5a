/**
 * The kernel's own reason for a failed task, made fit for a RUN_ERROR (docs/protocol.md §2.4):
 * one line, without control characters, every secret of the request and every credential-looking
 * token cut out, at most 500 characters; the error id only when it looks like one. The kernel
 * already sanitises its texts; this does not rely on it.
 */
import type { IacCodeProps } from '../protocol/schemas.js';
import { REDACTED, redactInlineCredentials } from '../redact-text.js';
import type { FailureAccount } from '../translate/run-translator.js';

export const MAX_REASON_CHARS = 500;
/** A secret shorter than this is not searched for: it would cut ordinary words out of the reason. */
const MIN_SECRET_CHARS = 6;
const ERROR_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const CONTROL = /\p{Cc}+/gu;

export interface KernelReason {
  /** The reason as the caller may read it, or undefined when the kernel gave none. */
  text: string | undefined;
  errorId: string | undefined;
}

/** The request's own secrets (docs/protocol.md §3.5), which the kernel may quote back. */
export function secretsOf(iacCode: IacCodeProps | undefined): string[] {
  if (!iacCode) return [];
  const values = [iacCode.llmApiKey, iacCode.alibabaCloud?.accessKeySecret, iacCode.alibabaCloud?.securityToken, ...Object.values(iacCode.llmHeaders ?? {})];
  return values.filter((value): value is string => typeof value === 'string' && value.trim().length >= MIN_SECRET_CHARS).map((value) => value.trim());
}

function bounded(text: string): string {
  const characters = Array.from(text);
  return characters.length <= MAX_REASON_CHARS ? text : `${characters.slice(0, MAX_REASON_CHARS - 1).join('')}…`;
}

export function kernelReason(account: FailureAccount | undefined, secrets: readonly string[]): KernelReason | undefined {
  if (!account) return undefined;
  let text = (account.text ?? '').replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  // Longest first: a secret that contains another is cut out whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) text = text.split(secret).join(REDACTED);
  text = bounded(redactInlineCredentials(text));
  const errorId = account.errorId !== undefined && ERROR_ID.test(account.errorId) ? account.errorId : undefined;
  if (!text && !errorId) return undefined;
  return { text: text || undefined, errorId };
}
