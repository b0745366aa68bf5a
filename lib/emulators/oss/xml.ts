/**
 * The little XML the OSS emulator needs (docs/architecture.md §9.3): escaping for the documents it
 * writes (ListBucketResult, DeleteResult, Error) and entity decoding for the one document it reads
 * (the DeleteMultipleObjects body). OSS documents are flat and small, so no general parser.
 */

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Escapes element text. Quotes stay literal, as in OSS's own answers (`<ETag>"5B3C…"</ETag>`). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (c) => ESCAPES[c] ?? c);
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five named entities and numeric character references; anything else is malformed. */
export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    const named = NAMED_ENTITIES[entity];
    if (named === undefined) throw new Error(`unknown XML entity ${whole}`);
    return named;
  });
}

/** `<name>escaped text</name>`; numbers and booleans print as OSS prints them (`100`, `false`). */
export function element(name: string, content: string | number | boolean): string {
  return `<${name}>${escapeXml(String(content))}</${name}>`;
}

/** A whole document: declaration, root element, children already rendered. */
export function xmlDocument(root: string, children: readonly string[]): string {
  return `${XML_DECLARATION}<${root}>${children.join('')}</${root}>`;
}
