/**
 * Image work has its own bounded concurrency (docs/architecture.md §4.6): every sharp operation
 * occupies a thread of libuv's pool while libvips works, and the file store's disk work shares that
 * pool. Four large images at once used to take all four threads, so a store save queued behind
 * them (an unrelated text run took 51.8 s instead of 0.1 s); at most IMAGE_WORK_CONCURRENCY run
 * now, and the store always finds a thread. The proof is an order, not a time: a save started
 * while four encodes are in progress finishes before any of them.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { IMAGE_WORK_CONCURRENCY, SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { photoLikePng } from '../support/images.js';

describe('image work and the file store', () => {
  it('a store save started while four large images are encoded finishes before any of them', async () => {
    expect(IMAGE_WORK_CONCURRENCY).toBeLessThan(4);
    const codec = new SharpImageCodec();
    // 18 MB of incompressible pixels: each encode keeps libvips busy for a good fraction of a second.
    const large = photoLikePng(3000, 2000);
    const store = new FileThreadStore(await mkdtemp(join(tmpdir(), 'agui-image-work-')));
    // sharp loaded and the store's folders made before anything is measured.
    await codec.inspect(large);
    await store.save('thread', { n: 1 }, 0);

    const finished: string[] = [];
    const encodes = Array.from({ length: 4 }, (_, index) =>
      codec.encode(large, { format: 'jpeg', quality: 80, fit: 2000 }).then(() => {
        finished.push(`image ${index}`);
      }),
    );
    // The encodes are under way (each takes far longer than this).
    await sleep(50);
    const save = store.save('thread', { n: 2 }, 1).then(() => {
      finished.push('save');
    });
    await Promise.all([...encodes, save]);

    expect(finished[0]).toBe('save');
    expect(finished).toHaveLength(5);
    expect(await store.load('thread')).toEqual({ document: { n: 2 }, revision: 2 });
  }, 60_000);
});
