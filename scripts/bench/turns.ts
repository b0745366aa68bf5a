/**
 * Whole turns: an AG-UI request through the adapter (validation, admission CAS on the file store,
 * A2A stream, translation, SSE) against the same turn sent straight to the kernel with the A2A SDK.
 * Also an 8 MiB image (downsampled by the adapter, docs/protocol.md §3.4), and the memory held per
 * concurrent live stream.
 */
import { iacCodeMetadata, sendParams } from '../../lib/core/a2a/outbound.js';
import type { WirePart } from '../../lib/core/a2a/wire-types.js';
import { photoLikePng } from '../../test/support/images.js';
import { type BenchStack, postTurn, startBenchStack, turnBody } from './local-stack.js';
import { type Comparison, compare, timeMedian } from './measure.js';

async function direct(stack: BenchStack, parts: WirePart[]): Promise<void> {
  const params = sendParams({
    messageId: `direct-${Math.random()}`,
    contextId: `agui-direct-${Math.random().toString(16).slice(2)}`,
    taskId: undefined,
    parts,
    iacCode: iacCodeMetadata({ schemaVersion: 1, rosInvocationId: 'bench', cwd: '/workspace/bench' }, '/workspace/bench', 'en'),
  });
  for await (const item of stack.kernel.sendStreamingMessage(params)) void item;
}

export async function benchTurns(): Promise<Comparison[]> {
  const stack = await startBenchStack();
  try {
    const results: Comparison[] = [];
    const adapter = await timeMedian(40, 5, () => postTurn(stack.server.url, turnBody('fast')));
    const kernel = await timeMedian(40, 5, () => direct(stack, [{ text: 'fast' }]));
    results.push(compare('normal turn latency', 'ms', adapter, kernel, 'baseline: the same turn sent to the kernel directly with @a2a-js/sdk'));

    // 8 MiB of photo-like PNG: it cannot take the fast path, so the adapter shrinks it to JPEG.
    const big = photoLikePng(1670, 1670).toString('base64');
    const imageTurn = () => ({
      ...turnBody('fast'),
      messages: [
        {
          id: 'img',
          role: 'user',
          content: [
            { type: 'text', text: 'fast' },
            { type: 'image', source: { type: 'data', mimeType: 'image/png', value: big } },
          ],
        },
      ],
    });
    const adapterImage = await timeMedian(5, 1, () => postTurn(stack.server.url, imageTurn()));
    // The kernel refuses more than 5 MiB, so the baseline sends it what the adapter sent: the downsampled image.
    const lastSend = stack.emulator.callsOf('SendStreamingMessage').at(-1);
    if (!lastSend) throw new Error('the image turn never reached the kernel');
    const sent = (lastSend.params as { message: { parts: WirePart[] } }).message.parts;
    const kernelImage = await timeMedian(5, 1, () => direct(stack, sent));
    results.push(compare('turn with an 8 MiB photo-like PNG', 'ms', adapterImage, kernelImage, 'baseline: the downsampled image the adapter sent, straight to the kernel'));

    results.push(await liveStreamMemory(stack));
    return results;
  } finally {
    await stack.close();
  }
}

/** Heap held per live stream: 100 concurrent silent streams through the adapter vs direct to the kernel. */
async function liveStreamMemory(stack: BenchStack): Promise<Comparison> {
  const streams = 100;
  stack.emulator.controls.silenceMs = 1_500;
  const held = async (open: () => Promise<unknown>): Promise<number> => {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const running = Array.from({ length: streams }, open);
    await new Promise((resolve) => setTimeout(resolve, 700));
    global.gc?.();
    const during = process.memoryUsage().heapUsed;
    await Promise.all(running);
    return (during - before) / streams / 1024;
  };
  const viaAdapter = await held(() => postTurn(stack.server.url, turnBody('silence')));
  const viaKernel = await held(() => direct(stack, [{ text: 'silence' }]));
  return compare(
    'heap per live stream',
    'KiB',
    viaAdapter,
    viaKernel,
    `${streams} concurrent silent streams; baseline: the same streams read from the kernel directly (includes the emulator's own share in both)`,
  );
}
