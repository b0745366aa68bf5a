/**
 * How large a value the adapter forwards to the kernel can come back (docs/protocol.md §1.4, §3.5).
 * The kernel echoes what it is sent — a message's metadata in its task's history, a guidance's text
 * on the owning run's stream — and the A2A SDK refuses any SSE event over 4 MiB, so one value too
 * many megabytes long breaks every later stream of its task. Each forwarded value is bounded by
 * the longest text a kernel may print it as: JSON with every character beyond ASCII escaped as
 * `\uXXXX` (Python's `json.dumps` default), six bytes for each UTF-16 code unit.
 */
import * as z from 'zod/mini';
import './zod-messages.js';

/** One `forwardedProps.iacCode` value, as the kernel may echo it (docs/protocol.md §1.4). */
export const MAX_FORWARDED_VALUE_BYTES = 64 * 1024;

/**
 * The text of a guidance message, as the kernel may echo it (docs/protocol.md §1.4, §6.13): the
 * kernel applies guidance on the owning run's stream, where its text can come back in an event of
 * its own, and an event the SDK refuses ends that run.
 */
export const MAX_GUIDANCE_TEXT_BYTES = 256 * 1024;

/** The value's JSON text with every non-ASCII code unit escaped: its length in bytes. */
export function echoedBytes(value: unknown): number {
  const json = JSON.stringify(value) ?? '';
  let bytes = json.length;
  for (let index = 0; index < json.length; index += 1) if (json.charCodeAt(index) > 0x7f) bytes += 5;
  return bytes;
}

/** The field issue's message: `what` is too long, and the limit it passed. */
export function tooLongMessage(limit: number, what = 'Too long'): string {
  return `${what}: at most ${limit} bytes as the kernel echoes it (JSON, non-ASCII escaped).`;
}

/** The schema, refused as too long past MAX_FORWARDED_VALUE_BYTES echoed bytes. */
export function forwarded<T extends z.ZodMiniType>(schema: T) {
  return schema.check(z.refine((value) => echoedBytes(value) <= MAX_FORWARDED_VALUE_BYTES, tooLongMessage(MAX_FORWARDED_VALUE_BYTES)));
}
