/**
 * `npm run record:kernel`: records the real iac-code kernel's raw A2A streams for every flow of
 * scripts/real-kernel/flows.ts into test/fixtures/kernel-streams/<flow>.json, the recordings the
 * emulator's scenarios are compared with (test/a2a-emulator/recorded-streams.test.ts;
 * docs/architecture.md §9.7).
 *
 *   npm run record:kernel [-- --only text,permission-allow]
 *
 * Sets the kernel up (../shared/real-kernel/setup.sh), starts one kernel per set of flags on
 * REAL_KERNEL_PORT and the ports after it (FAKE_LLM_PORT likewise for the scripted model; defaults
 * 41242 and 18080, as the shared folder's), runs each flow in a workspace folder of its own and
 * removes that folder afterwards. `provider-outage` waits out the kernel's retries: about a minute.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FLOWS, type KernelFlow } from './real-kernel/flows.js';
import { type KernelPair, startKernelPair } from './real-kernel/kernel-pair.js';
import { basePorts } from './real-kernel/ports.js';
import { realKernelPlace, setUpRealKernel } from './real-kernel/real-kernel-place.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'test', 'fixtures', 'kernel-streams');
export const KERNEL_VERSION = 'iac-code 0.13.1 (88ed89c0), a2a-sdk 1.1.0';

async function main(): Promise<void> {
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
  const flows = FLOWS.filter((flow) => !only || only.has(flow.name));
  if (flows.length === 0) throw new Error(`no flow named ${[...(only ?? [])].join(', ')}; flows: ${FLOWS.map((flow) => flow.name).join(', ')}`);
  const place = realKernelPlace();
  const availability = await setUpRealKernel(place);
  if (!availability.available) throw new Error(`real kernel unavailable: ${availability.reason}`);
  const base = basePorts();
  const pairs = new Map<string, KernelPair>();
  const pairFor = async (flow: KernelFlow): Promise<KernelPair> => {
    const args = flow.kernelArgs ?? '';
    let pair = pairs.get(args);
    if (!pair) {
      const offset = pairs.size;
      pair = await startKernelPair({ ports: { kernel: base.kernel + offset, model: base.model + offset }, args, place });
      pairs.set(args, pair);
    }
    return pair;
  };
  await mkdir(FIXTURES, { recursive: true });
  try {
    for (const flow of flows) {
      const pair = await pairFor(flow);
      const workspace = await pair.workspace(`recording-${flow.name}`);
      try {
        const started = Date.now();
        const streams = await flow.play({ url: pair.url, text: flow.kernelText, cwd: workspace.cwd });
        const fixture = {
          flow: flow.name,
          description: flow.description,
          kernel: KERNEL_VERSION,
          kernelArgs: flow.kernelArgs ?? '',
          text: flow.kernelText,
          recordedAt: new Date().toISOString(),
          streams,
        };
        await writeFile(join(FIXTURES, `${flow.name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
        process.stdout.write(`${flow.name}: ${streams.map((stream) => `${stream.label} ${stream.items.length}`).join(', ')} (${Date.now() - started} ms)\n`);
      } finally {
        await workspace.remove();
      }
    }
  } finally {
    for (const pair of pairs.values()) await pair.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`record:kernel failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
