/**
 * The adapter in front of the real iac-code kernel (docs/architecture.md §9.6, §9.7), when the
 * kernel is set up on this machine: a normal turn, and a 200 KB answer relayed, each through the
 * adapter (file store) against the same request sent straight to the same kernel with @a2a-js/sdk
 * as it comes (local-stack.ts `readDirect`), alternating so a drifting machine affects both alike.
 * The kernel talks to the scripted model (scripts/real-kernel/fake-llm.py), whose own pacing is in
 * both paths: the ratios say what the adapter adds to a kernel turn, not how fast a real model is.
 */
import { startKernelPair } from '../real-kernel/kernel-pair.js';
import { basePorts } from '../real-kernel/ports.js';
import { type Availability, realKernelReady } from '../real-kernel/real-kernel-place.js';
import { postTurn, readDirect, startBenchStack, turnBody } from './local-stack.js';
import { type Comparison, compare, median, pairedSamples, pairSpread } from './measure.js';

/** The bench's kernel: REAL_KERNEL_PORT / FAKE_LLM_PORT + 8 (the kernel suite uses 0–7). */
const PORT_OFFSET = 8;
const TURNS = 15;
const RELAYS = 7;
/** The scripted model's words (fake-llm.py): a short text answer, and about 200 KB of text. */
const TEXT = 'hello from the bench';
const BIG = 'a big answer please';
const BIG_CHARS = 100 * 2048;

export type RealKernelFigures = { figures: Comparison[]; note: string } | { figures: []; note: string; unavailable: Availability };

export async function benchRealKernel(): Promise<RealKernelFigures> {
  const ready = await realKernelReady();
  if (!ready.available) return { figures: [], note: `Real kernel not measured: ${ready.reason}.`, unavailable: ready };
  const base = basePorts();
  const pair = await startKernelPair({ ports: { kernel: base.kernel + PORT_OFFSET, model: base.model + PORT_OFFSET } });
  const workspace = await pair.workspace(`bench-${process.pid}`);
  const stack = await startBenchStack(undefined, pair.url);
  try {
    const viaAdapter = () => postTurn(stack.server.url, turnBody(TEXT, undefined, workspace.cwd));
    const direct = () => readDirect(stack, TEXT, () => undefined, workspace.cwd);
    const [adapterTurns, directTurns] = await pairedSamples(TURNS, 2, viaAdapter, direct);
    let relayed = 0;
    const [adapterRelays, directRelays] = await pairedSamples(
      RELAYS,
      1,
      async () => {
        relayed = await postTurn(stack.server.url, turnBody(BIG, undefined, workspace.cwd));
      },
      () => readDirect(stack, BIG, () => undefined, workspace.cwd),
    );
    if (relayed < BIG_CHARS) throw new Error(`the adapter's relayed body (${relayed} bytes) is shorter than the answer (${BIG_CHARS} characters)`);
    return {
      figures: [
        compare(
          'real kernel: normal turn latency (file store, new thread)',
          'ms',
          median(adapterTurns),
          median(directTurns),
          `median of ${TURNS} pairs, ${pairSpread(adapterTurns, directTurns)}; iac-code 0.13.1 with the scripted model; baseline: the same turn sent to the same kernel with @a2a-js/sdk as it comes`,
        ),
        compare(
          'real kernel: relay of a 200 KB answer',
          'ms',
          median(adapterRelays),
          median(directRelays),
          `median of ${RELAYS} pairs, ${pairSpread(adapterRelays, directRelays)}; 100 deltas of 2 KB; baseline: the same request read from the kernel directly`,
        ),
      ],
      note: 'Real kernel: iac-code 0.13.1 (../shared/real-kernel) with the scripted model, one kernel for both paths; its own pacing and the model calls are in both.',
    };
  } finally {
    await stack.close();
    await workspace.remove();
    await pair.stop();
  }
}
