/**
 * Language resolution (docs/protocol.md §1.6).
 *
 * `Accept-Language` is the fallback: q-values honoured, highest q wins, ties by order, `*` means
 * the server default. A valid `forwardedProps.iacCode.preferredLanguage` wins over the header.
 * Unsupported values are ignored, never an error.
 */
import { LANGUAGES, type Language } from './languages.js';

/** Normalises a language tag to a supported two-letter code, or undefined. */
export function normaliseLanguage(tag: unknown): Language | undefined {
  if (typeof tag !== 'string') return undefined;
  const primary = tag.trim().toLowerCase().replace(/_/g, '-').split('-')[0];
  return (LANGUAGES as readonly string[]).includes(primary ?? '') ? (primary as Language) : undefined;
}

function parseQuality(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim());
    if (name?.toLowerCase() !== 'q') continue;
    if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) return 0;
    return Number(value);
  }
  return 1;
}

export function languageFromAcceptLanguage(header: string | null | undefined, serverDefault: Language): Language {
  if (!header) return serverDefault;
  let best: { language: Language; q: number } | undefined;
  for (const item of header.split(',')) {
    const [range, ...params] = item.split(';');
    const tag = range?.trim();
    if (!tag) continue;
    const q = parseQuality(params);
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue;
    const language = tag === '*' ? serverDefault : normaliseLanguage(tag);
    if (!language) continue;
    if (!best || q > best.q) best = { language, q };
  }
  return best?.language ?? serverDefault;
}

/**
 * Reads `forwardedProps.iacCode.preferredLanguage` (or its snake_case spelling, docs/protocol.md
 * §3.5) from a parsed body without validating the rest.
 */
export function preferredLanguageOf(body: unknown): Language | undefined {
  if (!isRecord(body)) return undefined;
  const forwarded = body['forwardedProps'];
  if (!isRecord(forwarded)) return undefined;
  const iacCode = forwarded['iacCode'];
  if (!isRecord(iacCode)) return undefined;
  return normaliseLanguage(iacCode['preferredLanguage'] ?? iacCode['preferred_language']);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
