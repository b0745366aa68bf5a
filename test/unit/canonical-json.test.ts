/**
 * Canonical JSON (lib/core/canonical-json.ts; docs/protocol.md §3.7): sorted keys at every level,
 * and every own key counted — "__proto__" too, which JSON.parse makes an ordinary key.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/core/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined, b: 'é' }] })).toBe('{"a":[{"b":"é","d":2}],"b":1}');
  });

  it('keeps a "__proto__" key, at the top and nested, so two bodies that differ by it differ', () => {
    const withProto = JSON.parse('{"a":1,"__proto__":{"x":1},"s":{"__proto__":"v"}}');
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"a":1,"s":{"__proto__":"v"}}');
    expect(canonicalJson(withProto)).not.toBe(canonicalJson(JSON.parse('{"a":1,"s":{}}')));
  });

  it('does not let a "__proto__" value reach a prototype', () => {
    canonicalJson(JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
