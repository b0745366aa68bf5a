/**
 * The languages the adapter answers in (docs/protocol.md §1.6). Apart from the message catalogue
 * (catalogue.ts), so that resolving a language — which start-up does for the default language —
 * does not load every message in seven languages: the catalogue loads with the first answer that
 * needs one (docs/architecture.md §6.3).
 */
export const LANGUAGES = ['en', 'zh', 'es', 'fr', 'de', 'ja', 'pt'] as const;
export type Language = (typeof LANGUAGES)[number];
