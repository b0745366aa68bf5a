/**
 * The kernel's checks on binary parts of an incoming message (docs/protocol.md §3.4): a data part
 * carrying `bytes` or `base64` must be a PNG, JPEG, WebP or GIF, strict base64, and at most 5 MiB
 * decoded (`MAX_BINARY_INLINE_BYTES`); a `raw` part at most 5 MiB too. The emulator refuses a
 * violation with JSON-RPC invalid-params as the kernel does, so a regression that sends an
 * un-downsampled image fails a test instead of passing silently.
 */

export const MAX_BINARY_INLINE_BYTES = 5 * 1024 * 1024;
const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
/** Decoded size of strict base64 (it must re-encode to itself), else undefined. */
function decodedSize(base64: string): number | undefined {
  const bytes = Buffer.from(base64, 'base64');
  return bytes.toString('base64') === base64 ? bytes.length : undefined;
}

/** The kernel's error message for the first binary part it would refuse, or undefined. */
export function binaryPartProblem(parts: ReadonlyArray<Record<string, unknown>> | undefined): string | undefined {
  for (const part of parts ?? []) {
    if (typeof part['raw'] === 'string') {
      const size = decodedSize(part['raw']);
      if (size === undefined) return 'A2A raw part content is not valid base64.';
      if (size > MAX_BINARY_INLINE_BYTES) return 'A2A raw part content is too large.';
    }
    const data = part['data'];
    if (typeof data !== 'object' || data === null) continue;
    const content = (data as Record<string, unknown>)['bytes'] ?? (data as Record<string, unknown>)['base64'];
    if (content === undefined) continue;
    if (!IMAGE_MEDIA_TYPES.includes(String(part['mediaType']))) return 'A2A binary data part media type is not supported.';
    const size = typeof content === 'string' ? decodedSize(content) : undefined;
    if (size === undefined) return 'A2A binary data part content is not valid base64.';
    if (size > MAX_BINARY_INLINE_BYTES) return 'A2A binary data part content is too large.';
  }
  return undefined;
}
