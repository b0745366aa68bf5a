/**
 * The kernel adapter loaded on first use (lib/adapters/lazy-ports.ts, docs/architecture.md §6.3),
 * over the real SDK adapter and the A2A emulator: a stream opened before the module loaded is
 * forwarded whole, a failed load is tried again by the next call, and once loaded a stream is the
 * adapter's own — no forwarding layer kept for a run's life (docs/architecture.md §9.6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { LazyKernel } from '../../lib/adapters/lazy-ports.js';
import type { WireSendParams, WireStreamItem } from '../../lib/core/a2a/wire-types.js';
import type { KernelCallOptions } from '../../lib/core/ports.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { uniqueId } from '../support/fixtures.js';

/** The real adapter, noting each stream it hands out. */
class NotingKernel extends SdkA2AKernel {
  readonly streams: Array<AsyncIterable<WireStreamItem>> = [];

  override sendStreamingMessage(params: WireSendParams, options?: KernelCallOptions): AsyncIterable<WireStreamItem> {
    const stream = super.sendStreamingMessage(params, options);
    this.streams.push(stream);
    return stream;
  }
}

const hello = (): WireSendParams =>
  ({ message: { messageId: uniqueId('m'), role: 'ROLE_USER', contextId: uniqueId('ctx'), parts: [{ text: 'hello' }] } }) as unknown as WireSendParams;

async function countItems(stream: AsyncIterable<WireStreamItem>): Promise<number> {
  let items = 0;
  for await (const _ of stream) items += 1;
  return items;
}

describe('the kernel loaded on first use', () => {
  let emulator: A2AEmulator;

  beforeAll(async () => {
    emulator = await startA2AEmulator();
  });
  afterAll(() => emulator.close());

  it('forwards a stream opened before loading, retries a failed load, and then hands out the adapter’s own streams', async () => {
    const real = new NotingKernel({ url: emulator.url, token: undefined });
    let loads = 0;
    const lazy = new LazyKernel(async () => {
      loads += 1;
      if (loads === 1) throw new Error('module failed to load');
      return real;
    });
    await expect(countItems(lazy.sendStreamingMessage(hello()))).rejects.toThrow('module failed to load');
    const first = lazy.sendStreamingMessage(hello());
    expect(await countItems(first)).toBeGreaterThan(0);
    expect(loads).toBe(2);
    expect(real.streams).toHaveLength(1);
    expect(first).not.toBe(real.streams[0]);
    const later = lazy.sendStreamingMessage(hello());
    expect(later).toBe(real.streams[1]);
    expect(await countItems(later)).toBeGreaterThan(0);
    expect(loads).toBe(2);
  });
});
