/**
 * Standard padded base64 ↔ bytes for image data (docs/protocol.md §3.4), in plain JavaScript so the
 * core stays runtime-neutral (docs/architecture.md §1.1). Node 20's `atob`/`btoa` are several times
 * slower on megabytes of data than these table-driven loops; callers have already checked the text
 * is strict base64 (`isStrictBase64`, lib/core/protocol/user-content.ts).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const PAD = 61; // '='

const SEXTET = new Uint8Array(128);
const CHAR = new Uint8Array(64);
for (let index = 0; index < 64; index += 1) {
  SEXTET[ALPHABET.charCodeAt(index)] = index;
  CHAR[index] = ALPHABET.charCodeAt(index);
}

/** The number of bytes strict base64 text decodes to. */
export function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

export function base64ToBytes(base64: string): Uint8Array {
  const length = decodedLength(base64);
  const bytes = new Uint8Array(length);
  let out = 0;
  for (let index = 0; index < base64.length; index += 4) {
    const quad =
      ((SEXTET[base64.charCodeAt(index)] as number) << 18) |
      ((SEXTET[base64.charCodeAt(index + 1)] as number) << 12) |
      ((SEXTET[base64.charCodeAt(index + 2)] as number) << 6) |
      (SEXTET[base64.charCodeAt(index + 3)] as number);
    if (out < length) bytes[out++] = quad >> 16;
    if (out < length) bytes[out++] = (quad >> 8) & 255;
    if (out < length) bytes[out++] = quad & 255;
  }
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  const text = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let out = 0;
  let index = 0;
  for (; index + 2 < bytes.length; index += 3) {
    const triple = ((bytes[index] as number) << 16) | ((bytes[index + 1] as number) << 8) | (bytes[index + 2] as number);
    text[out++] = CHAR[triple >> 18] as number;
    text[out++] = CHAR[(triple >> 12) & 63] as number;
    text[out++] = CHAR[(triple >> 6) & 63] as number;
    text[out++] = CHAR[triple & 63] as number;
  }
  const rest = bytes.length - index;
  if (rest > 0) {
    const triple = ((bytes[index] as number) << 16) | (rest === 2 ? (bytes[index + 1] as number) << 8 : 0);
    text[out++] = CHAR[triple >> 18] as number;
    text[out++] = CHAR[(triple >> 12) & 63] as number;
    text[out++] = rest === 2 ? (CHAR[(triple >> 6) & 63] as number) : PAD;
    text[out++] = PAD;
  }
  // ASCII only: the UTF-8 decoder's fast path builds the string far quicker than String.fromCharCode.
  return new TextDecoder().decode(text);
}
