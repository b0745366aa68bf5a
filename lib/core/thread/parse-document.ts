/** Validates a loaded document against the schema and its own thread id (docs/protocol.md §6.10). */
import { StoreCorruptError } from '../ports.js';
import { type ThreadDocument, threadDocumentSchema } from './document.js';

export function parseThreadDocument(raw: unknown, threadId: string): ThreadDocument {
  const parsed = threadDocumentSchema.safeParse(raw);
  if (!parsed.success) throw new StoreCorruptError(`The thread document is invalid: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
  if (parsed.data.threadId !== threadId) throw new StoreCorruptError('The thread document belongs to another thread.');
  return parsed.data;
}
