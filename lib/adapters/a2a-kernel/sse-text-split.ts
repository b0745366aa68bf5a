/**
 * Splits a kernel event that is one long agent text into several events the A2A SDK can parse
 * (docs/protocol.md §7.1): its SSE parser refuses a line over 4 MiB, and iac-code repeats the whole
 * answer in one status update (`assistantFinal`) at the end of a turn — an answer over 4 MiB, streamed
 * fine delta by delta, used to fail the whole run there with A2A_UNAVAILABLE.
 *
 * The event is cut in its bytes, never decoded, joined or copied whole: one scan finds its longest
 * JSON string and safe places to cut it (not inside an escape, a UTF-8 character or a surrogate
 * pair); the rest of the event — everything but that string — is small, and parsed once (with a
 * sentinel in the string's place) to check that the string is the text of the only part of an agent
 * status message. Each new event is the original's bytes before the string, a slice of the string
 * (views of the pieces the event arrived in) and the original's bytes after it: the same update
 * with the same message id, metadata and framing, its text in order across the events. The
 * translator appends a message's texts in order, and a final answer that counts (nothing streamed
 * before it) keeps counting under its id (lib/core/translate/text-lane.ts), so the caller sees the
 * same text as from one event.
 */
import { joinBytes } from '../../core/join-bytes.js';

/** A string of more than this is split (well under the SDK's 4 MiB, above anything an ordinary delta is). */
export const SPLIT_TEXT_ABOVE_BYTES = 2 * 1024 * 1024;
/** Each event's slice of the text. */
export const SPLIT_TEXT_BYTES = 1024 * 1024;
/** Everything of the event but its long string must be at most this: else it is not one long text. */
const MAX_SKELETON_BYTES = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;
/** Stands for the long string while the rest of the event is parsed (JSON string content, escaped). */
const SENTINEL = 'agui-split-sentinel-\\u0000';
const SENTINEL_VALUE = 'agui-split-sentinel-\u0000';

const decoder = new TextDecoder();

/** A JSON string's content as byte offsets in the event (start after its opening quote, end at its closing one) and where it may be cut. */
interface StringSpan {
  start: number;
  end: number;
  cuts: number[];
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  return 0;
}

/**
 * The event's longest JSON string, with a cut every `cutEvery` bytes or so. Outside strings only
 * quotes matter (SSE field names and JSON structure hold no backslash); inside, runs of plain bytes
 * are skipped with indexOf, so each byte is looked at about once.
 */
function longestString(pieces: readonly Uint8Array[], cutEvery: number): StringSpan | undefined {
  let best: StringSpan | undefined;
  let inString = false;
  let start = 0;
  let cuts: number[] = [];
  let nextCut = 0;
  /** 0: no escape; 1: after a backslash; 2–5: that many hex digits of \uXXXX still to come, minus one. */
  let escaping = 0;
  let hex = 0;
  /** The last thing in the string was a high-surrogate escape: cutting right after it would split a pair. */
  let afterHighSurrogate = false;
  let base = 0;
  for (const piece of pieces) {
    const length = piece.length;
    let at = 0;
    // The next quote and backslash at or after `at` (-1: none in this piece), searched again only once passed.
    let nextQuote = piece.indexOf(QUOTE);
    let nextBackslash = piece.indexOf(BACKSLASH);
    while (at < length) {
      if (nextQuote >= 0 && nextQuote < at) nextQuote = piece.indexOf(QUOTE, at);
      if (nextBackslash >= 0 && nextBackslash < at) nextBackslash = piece.indexOf(BACKSLASH, at);
      if (!inString) {
        const quote = nextQuote;
        if (quote < 0) break;
        inString = true;
        start = base + quote + 1;
        cuts = [];
        nextCut = start + cutEvery;
        afterHighSurrogate = false;
        at = quote + 1;
        continue;
      }
      if (escaping === 1) {
        escaping = piece[at] === LOWER_U ? 5 : 0;
        hex = 0;
        if (escaping === 0) afterHighSurrogate = false;
        at += 1;
        continue;
      }
      if (escaping > 1) {
        hex = hex * 16 + hexValue(piece[at] as number);
        escaping -= 1;
        if (escaping === 1) {
          escaping = 0;
          afterHighSurrogate = hex >= 0xd800 && hex <= 0xdbff;
        }
        at += 1;
        continue;
      }
      // A run of plain bytes up to the next quote or backslash (or the piece's end).
      const quote = nextQuote;
      const backslash = nextBackslash;
      const special = quote < 0 ? (backslash < 0 ? length : backslash) : backslash < 0 ? quote : Math.min(quote, backslash);
      while (nextCut <= base + special) {
        let cut = Math.max(nextCut - base, at);
        if (cut === at && afterHighSurrogate) cut += 1;
        // Not inside a UTF-8 character: move on to the start of the next one.
        while (cut < special && ((piece[cut] as number) & 0xc0) === 0x80) cut += 1;
        // A cut at the piece's end waits for the next piece, whose first byte tells whether it is safe.
        if (cut > special || cut === length) break;
        cuts.push(base + cut);
        nextCut = base + cut + cutEvery;
      }
      if (special > at) afterHighSurrogate = false;
      if (special === length) break;
      at = special + 1;
      if (piece[special] === QUOTE) {
        inString = false;
        const end = base + special;
        if (!best || end - start > best.end - best.start) best = { start, end, cuts: cuts.filter((cut) => cut < end) };
      } else {
        escaping = 1;
      }
    }
    base += length;
  }
  return best;
}

/** Views of the event's bytes [from, to), across the pieces it arrived in. */
function views(pieces: readonly Uint8Array[], from: number, to: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let base = 0;
  for (const piece of pieces) {
    const end = base + piece.length;
    if (end > from && base < to) out.push(piece.subarray(Math.max(from - base, 0), Math.min(to - base, piece.length)));
    base = end;
    if (base >= to) break;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when the sentinel is the text of the only part of the agent message of a status update. */
function isAgentStatusText(skeleton: string): boolean {
  const data = skeleton
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''));
  if (data.length !== 1) return false;
  let envelope: unknown;
  try {
    envelope = JSON.parse(data[0] as string);
  } catch {
    return false;
  }
  if (!isRecord(envelope) || !isRecord(envelope['result'])) return false;
  const update = envelope['result']['statusUpdate'];
  if (!isRecord(update) || !isRecord(update['status'])) return false;
  const message = update['status']['message'];
  if (!isRecord(message) || (message['role'] !== 'ROLE_AGENT' && message['role'] !== 'agent')) return false;
  const parts = message['parts'];
  return Array.isArray(parts) && parts.length === 1 && isRecord(parts[0]) && parts[0]['text'] === SENTINEL_VALUE;
}

/**
 * The event (its pieces, `bytes` long, ending with its blank line) as several events of at most
 * about SPLIT_TEXT_BYTES of text each — or undefined when it is not one long agent text, which then
 * goes its usual way. The caller leaves events with bare CR line ends alone (it rewrites those).
 */
export function splitLongText(pieces: readonly Uint8Array[], bytes: number): Uint8Array[] | undefined {
  if (bytes <= SPLIT_TEXT_ABOVE_BYTES) return undefined;
  const span = longestString(pieces, SPLIT_TEXT_BYTES);
  if (!span || span.end - span.start <= SPLIT_TEXT_ABOVE_BYTES || span.cuts.length === 0) return undefined;
  if (bytes - (span.end - span.start) > MAX_SKELETON_BYTES) return undefined;
  const before = views(pieces, 0, span.start);
  const after = views(pieces, span.end, bytes);
  const skeleton = `${decoder.decode(joinBytes(before))}${SENTINEL}${decoder.decode(joinBytes(after))}`;
  if (!isAgentStatusText(skeleton.replace(/\r\n/g, '\n'))) return undefined;
  const out: Uint8Array[] = [];
  let from = span.start;
  for (const cut of [...span.cuts, span.end]) {
    if (cut <= from) continue;
    out.push(...before, ...views(pieces, from, cut), ...after);
    from = cut;
  }
  return out;
}
