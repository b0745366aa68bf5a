/**
 * Credentials written inside free text, cut out (docs/architecture.md §5.5): `Bearer <token>`,
 * `<sensitive name>=<value>` and `<sensitive name>: <value>`, a model provider's API key
 * (`sk-…`) and an STS token (`STS.…`). Both the logger (a second line of defence behind the Secret
 * type) and the kernel's reason on a RUN_ERROR (docs/protocol.md §2.4) pass text through here.
 */
export const REDACTED = '[redacted]';

const INLINE_BEARER = /\b(bearer\s+)[^\s"',;]+/gi;
const INLINE_ASSIGNMENT = /\b([\w-]*(?:token|secret|password|api[-_]?key|signature|credential)[\w-]*)(["']?\s*[=:]\s*["']?)(?!\[redacted\])[^\s"'&,;]+/gi;
const PROVIDER_KEY = /\bsk-[A-Za-z0-9_-]{8,}/g;
const STS_TOKEN = /\bSTS\.[A-Za-z0-9._-]{16,}/g;

export function redactInlineCredentials(text: string): string {
  return text.replace(INLINE_BEARER, `$1${REDACTED}`).replace(INLINE_ASSIGNMENT, `$1$2${REDACTED}`).replace(PROVIDER_KEY, REDACTED).replace(STS_TOKEN, REDACTED);
}
