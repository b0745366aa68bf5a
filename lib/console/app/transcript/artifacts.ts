/** CUSTOM iac-code.artifact.v1 (docs/protocol.md §4): a card naming the file, its type, size and where it is. */
import { el } from '../dom.js';
import { num, obj, str } from './event-fields.js';

export function artifactCard(value: Record<string, unknown>): HTMLElement {
  const metadata = obj(value, 'metadata');
  const part = Array.isArray(value['parts']) ? (value['parts'][0] as Record<string, unknown> | undefined) : undefined;
  const name = str(value, 'name') ?? str(part, 'filename') ?? str(value, 'artifactId') ?? 'artifact';
  const where = str(metadata, 'uri') ?? str(part, 'url');
  const type = str(metadata, 'mediaType') ?? str(part, 'mediaType');
  const size = num(metadata, 'byteSize');
  const facts = [type, size !== undefined ? `${size} bytes` : undefined].filter(Boolean).join(', ');
  return el(
    'article',
    { class: 'artifact', 'aria-label': `Artifact ${name}` },
    el('h4', { text: `Artifact: ${name}` }),
    facts ? el('p', { text: facts }) : null,
    where ? el('p', {}, el('code', { text: where })) : null,
  );
}
