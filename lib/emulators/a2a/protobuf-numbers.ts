/**
 * The kernel's metadata passes through protobuf `Struct`, whose numbers are all doubles: the wire
 * shows `8.0`, `1.0`, `1200.0` for every number under any `metadata` object (recorded in
 * test/fixtures/kernel-streams; docs/protocol.md §4.10). The emulator writes its JSON the same way:
 * each integer written inside a `"metadata":{…}` object becomes `<n>.0`; strings and everything
 * outside metadata (the JSON-RPC id, a part's bytes) are left as they are. One linear pass.
 */
const METADATA = '"metadata":{';

/** The index just after the object that starts at `open` (a `{`), strings and escapes respected. */
function endOfObject(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** `text` (JSON) with each number literal outside strings replaced by what `replace` makes of it. */
export function mapJsonNumbers(text: string, replace: (literal: string) => string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (inString) {
      out += char;
      if (char === '\\') {
        out += text[i + 1] ?? '';
        i += 1;
      } else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    if (char === '-' || (char >= '0' && char <= '9')) {
      const literal = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 40))?.[0] ?? char;
      out += replace(literal);
      i += literal.length - 1;
      continue;
    }
    out += char;
  }
  return out;
}

/** The object's integer literals written as floats. */
function floatsIn(object: string): string {
  return mapJsonNumbers(object, (literal) => (/^-?\d+$/.test(literal) ? `${literal}.0` : literal));
}

export function floatsInMetadata(text: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(METADATA); at >= 0; at = text.indexOf(METADATA, from)) {
    const open = at + METADATA.length - 1;
    const end = endOfObject(text, open);
    out += text.slice(from, open) + floatsIn(text.slice(open, end));
    from = end;
  }
  return out + text.slice(from);
}
