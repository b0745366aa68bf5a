/**
 * Relaying a long stream (docs/architecture.md §2.3): the kernel streams text deltas, the adapter
 * translates each into AG-UI events and writes it to the caller's SSE body.
 *
 * - throughput: 20,000 deltas through the adapter (HTTP POST → SSE read to the end) against the same
 *   stream read straight from the kernel with @a2a-js/sdk as it comes (what any client of the
 *   kernel pays; local-stack.ts `readDirect`);
 * - added latency per event: deltas paced so that none waits behind another, each carrying the
 *   moment the kernel published it; the reader notes when it arrives. p99 through the adapter
 *   against p99 read directly; the difference is what the adapter adds.
 *
 * The emulator, the adapter and the reader share one process and one clock (performance.now()).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '../../lib/emulators/a2a/scenarios.js';
import { type BenchStack, readDirect, turnBody } from './local-stack.js';
import { type Comparison, compare, median, pairSpread, percentile } from './measure.js';

export const RELAY_DELTAS = 20_000;
const RELAY_DELTA = 'x ';
const RELAY_CHARS = RELAY_DELTA.length * RELAY_DELTAS;
const PACED_DELTAS = 400;
const PACE_MS = 3;

/** 20,000 short deltas as fast as the emulator can publish them. */
const relayScenario: Scenario = async (script) => {
  script.task('SUBMITTED');
  for (let i = 0; i < RELAY_DELTAS; i += 1) script.text(RELAY_DELTA);
  script.finish('INPUT_REQUIRED', 'relayed');
};

/** Deltas that carry their publication time, a few milliseconds apart. */
const pacedScenario: Scenario = async (script) => {
  script.task('SUBMITTED');
  for (let i = 0; i < PACED_DELTAS; i += 1) {
    script.text(`@${performance.now().toFixed(3)};`);
    await sleep(PACE_MS);
  }
  script.finish('INPUT_REQUIRED', 'paced');
};

export function registerRelayScenarios(stack: BenchStack): void {
  stack.emulator.controls.scenarios.set('relay', relayScenario);
  stack.emulator.controls.scenarios.set('paced', pacedScenario);
}

/** Reads an SSE body chunk by chunk, handing every record's event (its `data:` line) to `onEvent` as it arrives. */
async function readSse(url: string, body: unknown, onEvent: (event: Record<string, unknown>) => void): Promise<void> {
  const response = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.body) throw new Error(`no stream: HTTP ${response.status}`);
  const decoder = new TextDecoder();
  let buffered = '';
  let finished = false;
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const record = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // `id: …` then `data: …` (docs/protocol.md §4.1); a heartbeat is a comment.
      const data = record.indexOf('data: ');
      if (data >= 0) {
        const event = JSON.parse(record.slice(data + 6)) as Record<string, unknown>;
        if (event['type'] === 'RUN_FINISHED') finished = true;
        onEvent(event);
      }
      end = buffered.indexOf('\n\n');
    }
  }
  if (!finished) throw new Error('the relayed run did not finish');
}

/** The publication times carried by the paced deltas, paired with their arrival times. */
function latencyOf(text: string, arrivedAt: number, into: number[]): void {
  for (const match of text.matchAll(/@(\d+\.\d+);/g)) into.push(arrivedAt - Number(match[1]));
}

export interface RelayFigures {
  throughput: Comparison;
  latency: Comparison;
  addedLatencyP99Ms: number;
}

/**
 * Collects garbage before a timed run (npm run bench exposes `gc`), so that neither path pays for
 * the other's garbage: most of a relay's time is the emulator's own allocation-heavy publishing.
 */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Eleven alternating pairs, each run after a collection: on the shared two-core machine a single
 * 20,000-delta relay moves by about ±10% from run to run, more than the gap the target allows, and
 * a median of three, or of seven, was too often a lucky or unlucky handful.
 */
/** One timed relay through the adapter, after a collection; checks all the text arrived. */
export async function readRelay(stack: BenchStack): Promise<number> {
  let relayed = 0;
  collectGarbage();
  const started = performance.now();
  await readSse(stack.server.url, turnBody('relay'), (event) => {
    if (event['type'] === 'TEXT_MESSAGE_CONTENT') relayed += String(event['delta']).length;
  });
  const elapsed = performance.now() - started;
  if (relayed < RELAY_CHARS) throw new Error(`the adapter relayed ${relayed} of ${RELAY_CHARS} characters`);
  return elapsed;
}

export async function benchRelay(stack: BenchStack, runs = 11): Promise<RelayFigures> {
  registerRelayScenarios(stack);
  const viaAdapter: number[] = [];
  const direct: number[] = [];
  // Warm-up of both paths, then alternate so a drifting machine affects both alike.
  await readSse(stack.server.url, turnBody('relay'), () => undefined);
  await readDirect(stack, 'relay', () => undefined);
  for (let run = 0; run < runs; run += 1) {
    // Deltas of one burst may go out merged (docs/protocol.md §4.1): what must arrive is all the text.
    viaAdapter.push(await readRelay(stack));
    collectGarbage();
    const started = performance.now();
    await readDirect(stack, 'relay', () => undefined);
    direct.push(performance.now() - started);
  }

  const adapterLatency: number[] = [];
  const directLatency: number[] = [];
  // Four alternating runs each, after a collection: a p99 is the tail, and a collection of garbage
  // left by an earlier figure lands in whichever run it falls.
  for (let run = 0; run < 4; run += 1) {
    collectGarbage();
    await readSse(stack.server.url, turnBody('paced'), (event) => {
      if (event['type'] === 'TEXT_MESSAGE_CONTENT') latencyOf(String(event['delta']), performance.now(), adapterLatency);
    });
    collectGarbage();
    await readDirect(stack, 'paced', (text) => latencyOf(text, performance.now(), directLatency));
  }
  const adapterP99 = percentile(adapterLatency, 0.99);
  const directP99 = percentile(directLatency, 0.99);
  return {
    throughput: compare(
      `relay ${RELAY_DELTAS.toLocaleString('en')} deltas`,
      'ms',
      median(viaAdapter),
      median(direct),
      `median of ${runs}, each run after a collection, ${pairSpread(viaAdapter, direct)}; baseline: the same stream read from the kernel directly with @a2a-js/sdk as it comes (ClientFactory, fetch)`,
    ),
    latency: compare(
      'latency per event, p99',
      'ms',
      adapterP99,
      directP99,
      `${adapterLatency.length} deltas ${PACE_MS} ms apart, kernel publish → reader; baseline: read from the kernel directly; added p99 ${(adapterP99 - directP99).toFixed(3)} ms`,
    ),
    addedLatencyP99Ms: Math.round((adapterP99 - directP99) * 1000) / 1000,
  };
}
