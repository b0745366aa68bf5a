/**
 * The body of one revision object (docs/state-store.md "Objects"):
 * `{"revision":N,"writeId":"<uuid>","previousWriteId":"<writeId of N−1>"|null,"document":{…}}`.
 *
 * - `writeId` is the writer's nonce (docs/architecture.md §3.2): a create whose answer was lost is recognised on
 *   retry by finding this value in the object.
 * - `previousWriteId` chains each revision to the exact object it was built on, so a writer that
 *   finds newer revisions after its create can tell "they were built on mine" (I committed) from
 *   "mine was re-created in a gap left by pruning" (I did not).
 */
import { StoreCorruptError } from '../../core/ports.js';

export interface Envelope {
  revision: number;
  writeId: string;
  previousWriteId: string | null;
  document: unknown;
}

export function encodeEnvelope(envelope: Envelope): Buffer {
  return Buffer.from(JSON.stringify(envelope), 'utf8');
}

/** Parses and checks a revision object; anything else is StoreCorruptError (a corrupt object affects only its thread). */
export function decodeEnvelope(body: Buffer, expectedRevision: number): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new StoreCorruptError('The thread state object is not JSON.', { cause: error });
  }
  const envelope = parsed as Partial<Envelope> | null;
  if (
    envelope === null ||
    typeof envelope !== 'object' ||
    Array.isArray(envelope) ||
    envelope.revision !== expectedRevision ||
    typeof envelope.writeId !== 'string' ||
    envelope.writeId === '' ||
    !(envelope.previousWriteId === null || typeof envelope.previousWriteId === 'string') ||
    !('document' in envelope)
  ) {
    throw new StoreCorruptError('The thread state object is not a valid revision envelope.');
  }
  return envelope as Envelope;
}
