/**
 * Image work has its own bounded concurrency (docs/architecture.md §4.6): every sharp operation
 * occupies a thread of libuv's pool while libvips works, and the file store's disk work shares that
 * pool. Four large images at once used to take all four threads, so the store's work queued behind
 * them (an unrelated text run took 51.8 s instead of 0.1 s); at most IMAGE_WORK_CONCURRENCY run
 * now, and the pool always has a thread free. The proof is an order, not a time: file-system calls
 * started while four encodes are in progress — the pool work a store save is made of, without the
 * disk's own fsync latency — all finish before any of the encodes. The file-system calls start
 * once libvips reports the encodes at work (sharp.counters()), not after a guessed pause.
 */
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { IMAGE_WORK_CONCURRENCY, SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { photoLikePng } from '../support/images.js';
import { waitFor } from '../support/read-until.js';

describe('image work and libuv’s thread pool', () => {
  it('file-system calls started while four large images are encoded all finish before any of them', async () => {
    expect(IMAGE_WORK_CONCURRENCY).toBeLessThan(4);
    const codec = new SharpImageCodec();
    // 36 MB of incompressible pixels: each encode keeps libvips busy far longer than 20 stat calls take.
    const large = photoLikePng(4000, 3000);
    const file = join(await mkdtemp(join(tmpdir(), 'agui-image-work-')), 'thread.json');
    await writeFile(file, '{}');
    // sharp loaded before anything is measured.
    await codec.inspect(large);

    const finished: string[] = [];
    const encodes = Array.from({ length: 4 }, (_, index) =>
      codec.encode(large, { format: 'jpeg', quality: 80, fit: 2000 }).then(() => {
        finished.push(`image ${index}`);
      }),
    );
    // The encodes are under way: as many as the gate lets through are in libvips' hands.
    await waitFor(() => sharp.counters().process === IMAGE_WORK_CONCURRENCY, { what: 'the encodes at work', stepMs: 1, seen: () => sharp.counters() });
    expect(finished).toEqual([]);
    // One after another, each needing a thread of the pool.
    const poolWork = (async () => {
      for (let call = 0; call < 20; call += 1) await stat(file);
      finished.push('file system');
    })();
    await Promise.all([...encodes, poolWork]);

    expect(finished[0]).toBe('file system');
    expect(finished).toHaveLength(5);
  }, 60_000);
});
