/**
 * The growing digest of a message's text (lib/core/translate/text-digests.ts, docs/protocol.md
 * §4.6) is exactly the digest of the whole text, however the text arrived: in tiny deltas, in
 * pieces longer than what it gathers before hashing, and with surrogate pairs cut between deltas
 * or at the point where it hashes what it gathered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GrowingTextDigest, textDigest } from '../../lib/core/translate/text-digests.js';

function grown(pieces: readonly string[]): string {
  const digest = new GrowingTextDigest();
  for (const piece of pieces) digest.append(piece);
  return digest.digest();
}

describe('GrowingTextDigest', () => {
  it('equals the digest of the whole text for any split of it', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 60 }), (pieces) => {
        expect(grown(pieces)).toBe(textDigest(pieces.join('')));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a surrogate pair whole when a delta ends between its halves, also where gathered text is hashed', () => {
    const pair = '😀';
    const split = [pair[0] as string, `${pair[1] as string}after`];
    expect(grown(split)).toBe(textDigest(`${pair}after`));
    // 16 Ki characters gather before hashing: end the gathered text on a high surrogate.
    const long = ['x'.repeat(16 * 1024 - 1) + (pair[0] as string), `${pair[1] as string}tail`];
    expect(grown(long)).toBe(textDigest(`${'x'.repeat(16 * 1024 - 1)}${pair}tail`));
    expect(grown(['y'.repeat(40_000), 'z'])).toBe(textDigest(`${'y'.repeat(40_000)}z`));
  });

  it('can be read while it grows: each digest is that of the text so far', () => {
    const digest = new GrowingTextDigest();
    digest.append('Hello, ');
    expect(digest.digest()).toBe(textDigest('Hello, '));
    digest.append('world');
    expect(digest.digest()).toBe(textDigest('Hello, world'));
    expect(digest.empty).toBe(false);
  });
});
