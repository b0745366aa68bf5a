/**
 * The A2A emulator plays a live task as the kernel does for readers it did not start
 * (docs/architecture.md §9.2): with the real @a2a-js/sdk client, several SubscribeToTask streams
 * attached to a working task each receive the current task and then every following update until
 * the task parks, while the owner's SendStreamingMessage stream goes on unaffected; a parked task
 * answers SubscribeToTask with task-not-found, as v0.13.1 does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { unwrapItem } from '../../lib/core/a2a/inbound.js';
import { contextIdFor, sendParams } from '../../lib/core/a2a/outbound.js';
import type { WireStreamItem } from '../../lib/core/a2a/wire-types.js';
import { KernelRpcError } from '../../lib/core/ports.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';

let emulator: A2AEmulator;
let kernel: SdkA2AKernel;

beforeAll(async () => {
  emulator = await startA2AEmulator();
  kernel = new SdkA2AKernel({ url: emulator.url, token: undefined });
});
afterAll(() => emulator.close());

function texts(items: readonly WireStreamItem[]): string {
  return items
    .map((item) => unwrapItem(item))
    .filter((item) => item.kind === 'statusUpdate')
    .map((item) => (item.statusMessage?.parts ?? []).map((part) => part.text ?? '').join(''))
    .join('|');
}

async function collect(stream: AsyncIterable<WireStreamItem>): Promise<WireStreamItem[]> {
  const items: WireStreamItem[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe('SubscribeToTask on the emulator', () => {
  it('delivers the following updates to every subscriber of a working task while its owner streams', async () => {
    emulator.controls.watch.observers = 2;
    try {
      const owner = kernel
        .sendStreamingMessage(
          sendParams({
            messageId: 'message-watched',
            contextId: contextIdFor('emulator-watch'),
            taskId: undefined,
            parts: [{ text: 'watched' }],
            iacCode: { cwd: '/workspace', preferredLanguage: 'en', cleanupOnly: false, rosInvocationId: 'invocation-1' },
          }),
        )
        [Symbol.asyncIterator]();
      const first = await owner.next();
      const taskId = unwrapItem(first.value as WireStreamItem).taskId as string;
      const ownerRest = collect({ [Symbol.asyncIterator]: () => owner });
      const [a, b] = await Promise.all([collect(kernel.subscribeToTask(taskId)), collect(kernel.subscribeToTask(taskId))]);
      const ownerItems = await ownerRest;
      for (const items of [a, b]) {
        expect(unwrapItem(items[0]!).kind).toBe('task');
        expect(texts(items)).toContain('Observers |see |this |part. ');
        expect(unwrapItem(items.at(-1)!).state).toBe('input-required');
      }
      expect(texts(a)).toBe(texts(b));
      expect(texts(ownerItems)).toContain('Observers |see |this |part. ');
      expect(unwrapItem(ownerItems.at(-1)!).state).toBe('input-required');
      // Parked now: the kernel answers a new subscription with task-not-found.
      await expect(collect(kernel.subscribeToTask(taskId))).rejects.toBeInstanceOf(KernelRpcError);
    } finally {
      emulator.controls.watch.observers = 1;
    }
  });
});
