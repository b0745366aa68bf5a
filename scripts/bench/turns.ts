/**
 * Whole turns: an AG-UI request through the adapter (validation, admission CAS on the file store,
 * A2A stream, translation, SSE) against the same turn sent straight to the kernel with the A2A SDK.
 * Also an 8 MiB image (downsampled by the adapter, docs/protocol.md §3.4). The adapter's turn and
 * the direct one alternate, so a machine whose speed drifts affects both alike.
 */
import type { WirePart } from '../../lib/core/a2a/wire-types.js';
import { photoLikePng } from '../../test/support/images.js';
import { postTurn, readDirect, startBenchStack, turnBody } from './local-stack.js';
import { type Comparison, compare, median, pairedSamples, pairSpread, timeMedian } from './measure.js';

export async function benchTurns(): Promise<Comparison[]> {
  const stack = await startBenchStack();
  try {
    const results: Comparison[] = [];
    const [adapter, kernel] = await pairedSamples(
      40,
      5,
      () => postTurn(stack.server.url, turnBody('fast')),
      () => readDirect(stack, 'fast'),
    );
    results.push(
      compare(
        'normal turn latency (file store, new thread)',
        'ms',
        median(adapter),
        median(kernel),
        `median of 40 pairs, ${pairSpread(adapter, kernel)}; baseline: the same turn sent to the kernel directly with @a2a-js/sdk as it comes (ClientFactory, fetch)`,
      ),
    );
    const thread = `bench-existing-${process.pid}`;
    await postTurn(stack.server.url, turnBody('fast', thread));
    const [existing, kernelAgain] = await pairedSamples(
      40,
      5,
      () => postTurn(stack.server.url, turnBody('fast', thread)),
      () => readDirect(stack, 'fast'),
    );
    results.push(
      compare(
        'normal turn latency (file store, existing thread)',
        'ms',
        median(existing),
        median(kernelAgain),
        `median of 40 pairs, ${pairSpread(existing, kernelAgain)}; baseline: the same turn sent to the kernel directly`,
      ),
    );

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
    const kernelImage = await timeMedian(5, 1, () => readDirect(stack, sent));
    results.push(compare('turn with an 8 MiB photo-like PNG', 'ms', adapterImage, kernelImage, 'baseline: the downsampled image the adapter sent, straight to the kernel'));

    return results;
  } finally {
    await stack.close();
  }
}
