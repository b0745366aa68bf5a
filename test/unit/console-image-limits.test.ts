/**
 * The console checks the adapter's image limits before sending (docs/protocol.md §1, §3), with the
 * same numbers the adapter enforces (lib/core/protocol/user-content.ts, lib/http/run-route.ts).
 */
import { describe, expect, it } from 'vitest';
import { bodyProblem, IMAGE_TYPES, imageProblem, MAX_BODY_BYTES, MAX_IMAGE_BYTES, MAX_TOTAL_IMAGE_BYTES } from '../../lib/console/app/composer/image-limits.js';
import { MAX_IMAGE_BYTES as ADAPTER_IMAGE, MAX_TOTAL_IMAGE_BYTES as ADAPTER_TOTAL, IMAGE_MIME_TYPES } from '../../lib/core/protocol/user-content.js';
import { MAX_RUN_BODY_BYTES } from '../../lib/http/run-route.js';

const MiB = 1024 * 1024;
const image = (name: string, size: number, type = 'image/png') => ({ name, size, type });

describe('image limits in the console', () => {
  it('are the adapter’s own', () => {
    expect([...IMAGE_TYPES]).toEqual([...IMAGE_MIME_TYPES]);
    expect([MAX_IMAGE_BYTES, MAX_TOTAL_IMAGE_BYTES, MAX_BODY_BYTES]).toEqual([ADAPTER_IMAGE, ADAPTER_TOTAL, MAX_RUN_BODY_BYTES]);
  });

  it('refuse a wrong type, an image over 8 MiB and images over 10 MiB together, and nothing else', () => {
    expect(imageProblem(image('a.svg', 10, 'image/svg+xml'), [])).toBe('a.svg: only PNG, JPEG, GIF and WebP images can be attached.');
    expect(imageProblem(image('a.png', 8 * MiB), [])).toBeUndefined();
    expect(imageProblem(image('a.png', 8 * MiB + 1), [])).toBe('a.png is 8.0 MiB; an image may be at most 8.0 MiB.');
    expect(imageProblem(image('b.webp', 3 * MiB + 1, 'image/webp'), [image('a.png', 7 * MiB)])).toBe(
      'b.webp would bring the images to 10.0 MiB; all images together may be at most 10.0 MiB.',
    );
    expect(imageProblem(image('b.gif', 3 * MiB, 'image/gif'), [image('a.png', 7 * MiB)])).toBeUndefined();
  });

  it('refuse a message whose request would pass 12 MiB once base64-encoded', () => {
    expect(bodyProblem('hello', [image('a.png', 8 * MiB)])).toBeUndefined();
    expect(bodyProblem('hello', [image('a.png', 8 * MiB), image('b.png', 2 * MiB)])).toMatch(/^This message would be about 13\.\d MiB; a request may be at most 12\.0 MiB\.$/);
    expect(bodyProblem('x'.repeat(12 * MiB), [])).toMatch(/a request may be at most 12\.0 MiB/);
  });
});
