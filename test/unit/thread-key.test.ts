import { describe, expect, it } from 'vitest';
import { threadKey } from '../../lib/core/thread/thread-key.js';

describe('thread keys (docs/protocol.md §6.11)', () => {
  it('keeps safe lower-case ids, including UUIDs', () => {
    expect(threadKey('8473547e-c8ed-4aef-a84c-603a6a8d42da')).toBe('8473547e-c8ed-4aef-a84c-603a6a8d42da');
    expect(threadKey('thread_1.v2')).toBe('thread_1.v2');
  });

  it('hex-encodes ids that are unsafe as file names', () => {
    expect(threadKey('Thread-1')).toBe(`aguiid~${Buffer.from('Thread-1').toString('hex')}`);
    expect(threadKey('../external/thread')).toBe(`aguiid~${Buffer.from('../external/thread').toString('hex')}`);
    for (const id of ['.', '..', 'thread.', 'con', 'CON', 'con.json', 'lpt1.x', 'com9']) expect(threadKey(id).startsWith('aguiid~')).toBe(true);
    expect(threadKey('Thread-1')).not.toBe(threadKey('thread-1'));
  });

  it('hashes ids whose hex form would exceed 200 characters, without collisions', () => {
    const long = 'T'.repeat(115);
    expect(threadKey(long)).toMatch(/^aguihash~[0-9a-f]{64}$/);
    expect(threadKey('会话'.repeat(40))).toMatch(/^aguihash~/);
    expect(threadKey(`${long}a`)).not.toBe(threadKey(`${long}b`));
    expect(threadKey('T'.repeat(96)).startsWith('aguiid~')).toBe(true);
  });

  it('keeps raw ids only up to 200 characters: a longer safe id is hashed, so no key outgrows a file name', () => {
    expect(threadKey('a'.repeat(200))).toBe('a'.repeat(200));
    for (const length of [201, 210, 2_000]) expect(threadKey('a'.repeat(length))).toMatch(/^aguihash~[0-9a-f]{64}$/);
    expect(threadKey('a'.repeat(201))).not.toBe(threadKey('a'.repeat(202)));
  });
});
