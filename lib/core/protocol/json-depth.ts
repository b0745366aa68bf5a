/**
 * The JSON nesting limit (docs/protocol.md §1.4): a body nested deeper than 256 levels is refused
 * before it is parsed. Everything after the parse — zod, the request digest, Ajv — walks values
 * recursively, and JSON.parse itself spends seconds and hundreds of MiB on a 12 MiB body of
 * brackets, so the depth is measured on the text in one pass that builds nothing.
 */

export const MAX_JSON_DEPTH = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Where the scan is inside one of the first two levels, so the refusal can name the field. */
type Frame = { array: true; index: number } | { array: false; key: string | undefined; expectKey: boolean };

/** Levels whose position is tracked: the body's own field and the one below it (`state.a`, `messages[0]`). */
const NAMED_LEVELS = 2;

/**
 * The path (object keys and array indexes of the first two levels) to the first container
 * nested deeper than `max` levels — the body itself is level 1 — or undefined when the text stays
 * within the limit. Brackets inside strings do not count. Text that is not JSON is not judged
 * here: JSON.parse refuses it afterwards.
 */
export function tooDeepPath(text: string, max = MAX_JSON_DEPTH): Array<string | number> | undefined {
  let depth = 0;
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit === QUOTE) {
      const end = stringEnd(text, i);
      const frame = depth >= 1 && depth <= NAMED_LEVELS ? frames[depth - 1] : undefined;
      if (frame && !frame.array && frame.expectKey) {
        frame.key = decodeKey(text.slice(i, end + 1));
        frame.expectKey = false;
      }
      i = end;
    } else if (unit === OPEN_OBJECT || unit === OPEN_ARRAY) {
      depth += 1;
      if (depth > max) return frames.slice(0, Math.min(depth - 1, NAMED_LEVELS)).map(segmentOf);
      if (depth <= NAMED_LEVELS) frames[depth - 1] = unit === OPEN_ARRAY ? { array: true, index: 0 } : { array: false, key: undefined, expectKey: true };
    } else if (unit === CLOSE_OBJECT || unit === CLOSE_ARRAY) {
      if (depth > 0) depth -= 1;
    } else if (unit === COMMA && depth >= 1 && depth <= NAMED_LEVELS) {
      const frame = frames[depth - 1] as Frame;
      if (frame.array) frame.index += 1;
      else frame.expectKey = true;
    }
  }
  return undefined;
}

/**
 * The index of the quote that closes the string opening at `start` (the text's end when
 * unterminated): the next quote preceded by an even number of backslashes. indexOf keeps a long
 * string — an 8 MiB base64 image — a native scan.
 */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

function decodeKey(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal;
  }
}

function segmentOf(frame: Frame): string | number {
  if (frame.array) return frame.index;
  return frame.key ?? '(key)';
}
