/** An in-process adapter (loopback HTTP) in front of the A2A emulator — or of a real kernel — for benchmarks. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { silentLogger } from '../../lib/adapters/logger.js';
import { listen, type RunningServer } from '../../lib/adapters/node-server/node-server.js';
import { versions } from '../../lib/adapters/versions.js';
import { iacCodeMetadata, sendParams } from '../../lib/core/a2a/outbound.js';
import type { WirePart } from '../../lib/core/a2a/wire-types.js';
import type { ThreadStore } from '../../lib/core/ports.js';
import type { Scenario } from '../../lib/emulators/a2a/scenarios.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { createApp } from '../../lib/http/app.js';

export interface BenchStack {
  emulator: A2AEmulator;
  /**
   * The baseline's client: @a2a-js/sdk as it comes (its ClientFactory, the JSON-RPC transport over
   * the global fetch) — what any client reading the kernel directly pays. Not the adapter's own
   * kernel client (SdkA2AKernel), which is tuned for the adapter (kernel-event-stream.ts): a
   * baseline must not move when the code under measurement does.
   */
  direct: Client;
  server: RunningServer;
  close(): Promise<void>;
}

/** A turn with no artificial pauses: a few text deltas, usage, the final text. */
export const fastTurn: Scenario = async (script) => {
  script.task('SUBMITTED');
  for (const word of ['Fast ', 'answer ', 'for ', 'the ', 'benchmark.']) script.text(word);
  script.status('WORKING', { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } });
  script.finish('INPUT_REQUIRED');
};

/** `kernelUrl`: the kernel both the adapter and the baseline talk to (default: the stack's own emulator). */
export async function startBenchStack(store?: ThreadStore, kernelUrl?: string): Promise<BenchStack> {
  const emulator = await startA2AEmulator();
  emulator.controls.scenarios.set('fast', fastTurn);
  const kernelAt = kernelUrl ?? emulator.url;
  const kernel = new SdkA2AKernel({ url: kernelAt, token: undefined });
  const threads = store ?? new FileThreadStore(await mkdtemp(join(tmpdir(), 'agui-bench-')));
  const app = createApp({
    config: { authToken: undefined, allowedRoots: [], defaultLanguage: 'en', heartbeatMs: 15_000, leaseTtlMs: 30_000, leaseRenewMs: 10_000 },
    storeFor: () => threads,
    storeKind: threads.kind,
    kernel,
    images: new SharpImageCodec(),
    logger: silentLogger,
    clock: Date.now,
    versions,
  });
  const server = await listen(app, silentLogger, '127.0.0.1', 0);
  const direct = await new ClientFactory().createFromUrl(kernelAt);
  return {
    emulator,
    direct,
    server,
    async close() {
      await server.close();
      await emulator.close();
    },
  };
}

let counter = 0;

/** The workspace the bench's turns name; a real kernel needs one of its own (scripts/bench/real-kernel.ts). */
const BENCH_CWD = '/workspace/bench';

export function turnBody(text: string, threadId = `bench-${process.pid}-${++counter}`, cwd = BENCH_CWD): Record<string, unknown> {
  return {
    threadId,
    runId: `run-${++counter}`,
    state: {},
    messages: [{ id: `m-${counter}`, role: 'user', content: text }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'bench', cwd } },
  };
}

/** POSTs one run and reads its SSE body to the end; returns the number of bytes read. */
export async function postTurn(url: string, body: unknown): Promise<number> {
  const response = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!text.includes('"RUN_FINISHED"')) throw new Error(`turn did not finish: ${text.slice(-300)}`);
  return text.length;
}

/**
 * The baseline of every turn figure: the same message sent straight to the kernel with @a2a-js/sdk
 * as it comes (`BenchStack.direct`) and its stream read to the end; `onText` sees each streamed
 * status text as it arrives.
 */
export async function readDirect(stack: BenchStack, text: string | WirePart[], onText: (text: string) => void = () => undefined, cwd = BENCH_CWD): Promise<void> {
  const params = sendParams({
    messageId: `direct-${Math.random()}`,
    contextId: `agui-direct-${Math.random().toString(16).slice(2)}`,
    taskId: undefined,
    parts: typeof text === 'string' ? [{ text }] : text,
    iacCode: iacCodeMetadata({ schemaVersion: 1, rosInvocationId: 'bench', cwd }, cwd, 'en'),
  });
  for await (const { payload } of stack.direct.sendMessageStream(SendMessageRequest.fromJSON(params))) {
    if (payload?.$case !== 'statusUpdate') continue;
    for (const part of payload.value.status?.message?.parts ?? []) if (part.content?.$case === 'text') onText(part.content.value);
  }
}
