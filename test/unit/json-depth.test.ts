/**
 * The nesting limit on body text (lib/core/protocol/json-depth.ts; docs/protocol.md §1.4): levels
 * counted on the text before JSON.parse, brackets inside strings ignored, and the refusal naming
 * the first two levels of the path to the place that went too deep.
 */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepPath } from '../../lib/core/protocol/json-depth.js';

const nested = (levels: number, inner = '1') => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;

describe('tooDeepPath', () => {
  it('accepts 256 levels, the body counting as one, and refuses 257', () => {
    expect(MAX_JSON_DEPTH).toBe(256);
    expect(tooDeepPath(nested(256))).toBeUndefined();
    expect(tooDeepPath(nested(257))).toEqual(['a', 'a']);
    expect(tooDeepPath(`${'['.repeat(256)}${']'.repeat(256)}`)).toBeUndefined();
    expect(tooDeepPath(`${'['.repeat(257)}${']'.repeat(257)}`)).toEqual([0, 0]);
  });

  it('names the body field and the key or index below it', () => {
    const deep = nested(300);
    expect(tooDeepPath(`{"threadId":"t","state":{"x":1,"deep":${deep}}}`)).toEqual(['state', 'deep']);
    expect(tooDeepPath(`{"messages":[{"id":"m"},{"role":"user","extra":${deep}}]}`)).toEqual(['messages', 1]);
    expect(tooDeepPath(`{"context":[[],[${'['.repeat(300)}${']'.repeat(300)}]]}`)).toEqual(['context', 1]);
    // Keys are decoded as JSON strings.
    expect(tooDeepPath(`{"st\\u0061te":{"\\"q\\"":${deep}}}`)).toEqual(['state', '"q"']);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const brackets = '{'.repeat(1_000);
    expect(tooDeepPath(JSON.stringify({ text: brackets, more: `\\"${brackets}`, [brackets]: '[' }))).toBeUndefined();
    expect(tooDeepPath(`{"a":"\\\\","b":${nested(300)}}`)).toEqual(['b', 'a']);
  });

  it('leaves text that is not JSON to the parser, and scans 12 MiB of brackets without building anything', () => {
    expect(tooDeepPath('{"threadId":')).toBeUndefined();
    expect(tooDeepPath(']]]]}}}')).toBeUndefined();
    expect(tooDeepPath('"unterminated')).toBeUndefined();
    expect(tooDeepPath('['.repeat(12 * 1024 * 1024))).toEqual([0, 0]);
  });

  it('takes another limit', () => {
    expect(tooDeepPath('[[1]]', 2)).toBeUndefined();
    expect(tooDeepPath('[[[1]]]', 2)).toEqual([0, 0]);
    expect(tooDeepPath('{"a":[1]}', 1)).toEqual(['a']);
  });
});
