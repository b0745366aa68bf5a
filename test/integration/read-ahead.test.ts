/**
 * Reading the A2A stream ahead of a pending write (lib/core/run/read-ahead.ts; docs/architecture.md
 * §2.4, docs/protocol.md §6.9): while the write that makes a new task id durable is in flight, the
 * run already receives the next item — yet nothing of that item reaches the client before the write
 * committed, and when the write fails, nothing read meanwhile is shown at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireStreamItem } from '../../lib/core/a2a/wire-types.js';
import type { A2AKernel, StoredDocument, ThreadStore } from '../../lib/core/ports.js';
import { StoreUnavailableError } from '../../lib/core/ports.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { LiveSse } from '../support/live-sse.js';
import { MemoryThreadStore } from '../support/memory-store.js';
import { textOf } from '../support/observe.js';
import { type Stack, startStack } from '../support/stack.js';

/** Holds the save that records a task id until the test settles it; every other call goes through. */
class HeldIdentityStore implements ThreadStore {
  readonly kind = 'memory' as const;
  readonly inner = new MemoryThreadStore();
  held: { settle: (fail: boolean) => void } | undefined;

  load(threadId: string): Promise<StoredDocument | undefined> {
    return this.inner.load(threadId);
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    const taskId = (document as { execution: { taskId: string | null } }).execution.taskId;
    if (taskId !== null && expected === 1) {
      const fail = await new Promise<boolean>((settle) => {
        this.held = { settle };
      });
      this.held = undefined;
      if (fail) throw new StoreUnavailableError('injected identity write failure');
    }
    return this.inner.save(threadId, document, expected);
  }
}

let stack: Stack;
let store: HeldIdentityStore;
/** Items the run has taken from the kernel's stream so far. */
let pulled = 0;

beforeAll(async () => {
  store = new HeldIdentityStore();
  stack = await startStack({
    store,
    wrapKernel: (kernel): A2AKernel =>
      Object.assign(Object.create(kernel) as A2AKernel, {
        sendStreamingMessage: async function* (...args: Parameters<A2AKernel['sendStreamingMessage']>): AsyncIterable<WireStreamItem> {
          for await (const item of kernel.sendStreamingMessage(...args)) {
            pulled += 1;
            yield item;
          }
        },
      }),
  });
});
afterAll(async () => stack.close());

async function untilTrue(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

/** Starts a turn and waits until its identity write is held and the following item has been read. */
async function turnWithHeldIdentities(): Promise<LiveSse> {
  pulled = 0;
  const live = new LiveSse(await stack.post('/', runBody({ threadId: uniqueId('thread') })));
  await live.until((event) => event.type === 'RUN_STARTED');
  await untilTrue(() => store.held !== undefined && pulled >= 3);
  // The identities are written on the second item, which names the session (the first names only
  // the task, docs/protocol.md §6.9); one item ahead of it, no more: the run takes items one at a time.
  expect(pulled).toBe(3);
  return live;
}

describe('the stream read ahead of the identity write', () => {
  it('shows the items read meanwhile only after the write, in order', async () => {
    const live = await turnWithHeldIdentities();
    store.held?.settle(false);
    const events = await live.rest();
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // The session event (it reveals the task id) comes before any event of the items that followed.
    const types = events.map((event) => event.type);
    expect(types.indexOf('CUSTOM')).toBeLessThan(types.indexOf('TEXT_MESSAGE_START'));
    // All of the text, in order: how many events its deltas arrive in depends on timing (docs/protocol.md §4.1).
    expect(textOf(events)).toBe('Hello from the iac-code emulator. You said: hello there');
  });

  it('shows nothing read meanwhile when the write fails, and cancels the task', async () => {
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    const live = await turnWithHeldIdentities();
    store.held?.settle(true);
    const events = await live.rest();
    expect(events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(events[1]).toMatchObject({ code: 'STATE_PERSISTENCE_FAILED' });
    expect(stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore + 1);
  });
});
