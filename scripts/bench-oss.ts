/**
 * `npm run bench:oss`: how many OSS requests the OSS thread store makes per admission, per normal
 * turn, per interrupt and per resume (docs/state-store.md "Request counts"). Runs the adapter
 * in-process on the OSS driver against the local OSS emulator and the built-in A2A emulator, and
 * reads the emulator's per-operation request counters around each step. Prints JSON.
 */
import { randomUUID } from 'node:crypto';
import { SdkA2AKernel } from '../lib/adapters/a2a-kernel/sdk-kernel.js';
import { SharpImageCodec } from '../lib/adapters/image/sharp-codec.js';
import { silentLogger } from '../lib/adapters/logger.js';
import { listen } from '../lib/adapters/node-server/node-server.js';
import { OssStoreProvider } from '../lib/adapters/oss-store/index.js';
import { versions } from '../lib/adapters/versions.js';
import { parseRunRequest } from '../lib/core/protocol/run-request.js';
import { admit } from '../lib/core/run/admit.js';
import { Secret } from '../lib/core/secret.js';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../lib/emulators/oss/server.js';
import { createApp } from '../lib/http/app.js';

const credential = { accessKeyId: 'bench-ak', accessKeySecret: randomUUID() };
const kernel = await startA2AEmulator();
const oss = await startOssEmulator({ credentials: [credential] });
const provider = new OssStoreProvider({
  bucket: 'agui-state',
  endpoint: oss.endpoint,
  region: 'cn-hangzhou',
  pathStyle: true,
  signature: 'v4',
  prefix: 'agui',
  timeoutMs: 5_000,
  credentials: { accessKeyId: new Secret(credential.accessKeyId), accessKeySecret: new Secret(credential.accessKeySecret), securityToken: undefined },
});
const app = createApp({
  config: { authToken: undefined, allowedRoots: [], defaultLanguage: 'en', heartbeatMs: 15_000, leaseTtlMs: 30_000, leaseRenewMs: 10_000 },
  storeFor: (request) => provider.storeFor(request),
  storeKind: 'oss',
  kernel: new SdkA2AKernel({ url: kernel.url, token: undefined }),
  images: new SharpImageCodec(),
  logger: silentLogger,
  clock: Date.now,
  versions,
});
const server = await listen(app, silentLogger, '127.0.0.1', 0);

function body(threadId: string, options: { runId?: string; text?: string; resume?: unknown[] } = {}): Record<string, unknown> {
  const request: Record<string, unknown> = {
    threadId,
    runId: options.runId ?? randomUUID(),
    state: {},
    messages: [{ id: 'message-1', role: 'user', content: options.text ?? 'hello' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/workspace/bench' } },
  };
  if (options.resume) request['resume'] = options.resume;
  return request;
}

async function post(path: string, payload: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(payload),
  });
  return { status: response.status, text: await response.text() };
}

/** The OSS requests `step` makes, by operation (zeros left out). */
async function measure(step: () => Promise<unknown>): Promise<Record<string, number>> {
  oss.resetCounters();
  await step();
  return Object.fromEntries(Object.entries(oss.counters).filter(([, count]) => count > 0));
}

function lastEvent(sse: string): Record<string, unknown> {
  const blocks = sse.split('\n\n').filter((block) => block.startsWith('data:'));
  return JSON.parse((blocks.at(-1) ?? 'data: {}').slice(5)) as Record<string, unknown>;
}

const results: Record<string, Record<string, number>> = {};

// Admission alone — the core's admit(): read, decide, one compare-and-swap. The lease is made to
// expire at once so the second admission on the same thread is not THREAD_BUSY.
async function admission(threadId: string): Promise<void> {
  const request = parseRunRequest(body(threadId), { allowedRoots: [] });
  await admit(provider.storeFor(), request, () => ({ now: Date.now(), leaseTtlMs: 1, newExecutionId: randomUUID, leaseId: randomUUID() }));
}
const admissionThread = `bench-${randomUUID()}`;
results['admission, new thread'] = await measure(() => admission(admissionThread));
await new Promise((resolve) => setTimeout(resolve, 5));
results['admission, existing thread'] = await measure(() => admission(admissionThread));

// A normal turn on a new thread, then the next turn on the same thread.
const thread = `bench-${randomUUID()}`;
const firstTurn = body(thread);
results['normal turn, new thread (hello)'] = await measure(() => post('/', firstTurn));
results['normal turn, existing thread (hello)'] = await measure(() => post('/', body(thread)));

// Admissions that are refused: decided from one read, nothing written.
results['rejected admission (DUPLICATE_RUN_ID)'] = await measure(() => post('/', firstTurn));
const busyThread = `bench-${randomUUID()}`;
const live = fetch(`${server.url}/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify(body(busyThread, { text: 'long' })),
});
const liveResponse = await live;
if (!liveResponse.body) throw new Error('the live run answered without a body');
const reader = liveResponse.body.getReader();
let seen = '';
while (!/"taskId":"/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
results['rejected admission (THREAD_BUSY)'] = await measure(() => post('/', body(busyThread)));
const executionId = /"executionId":"([^"]+)"/.exec(seen)?.[1] ?? '';
// The cancel route's own read and write, plus the live run noticing and ending (its stream drained).
results['cancel of a live run (route + the run ending on its instance)'] = await measure(async () => {
  await post(`/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId: busyThread, rosInvocationId: 'invocation-1' });
  while (!(await reader.read()).done);
});

// An interrupt, and its resume.
const interruptThread = `bench-${randomUUID()}`;
let interruptSse = '';
results['interrupt (permission run, new thread)'] = await measure(async () => {
  interruptSse = (await post('/', body(interruptThread, { text: 'permission' }))).text;
});
const outcome = lastEvent(interruptSse)['outcome'] as { interrupts: Array<{ id: string }> };
const interruptId = outcome.interrupts[0]?.id;
results['resume (answering the interrupt)'] = await measure(() =>
  post('/', body(interruptThread, { resume: [{ interruptId, status: 'resolved', payload: { decision: 'allow_once' } }] })),
);

// One more write on a thread with a known base: what each further save (e.g. a lease renewal) costs.
const store = provider.storeFor();
const loaded = await store.load(thread);
results['one save with a known base (e.g. a lease renewal)'] = await measure(() => store.save(thread, loaded?.document, loaded?.revision ?? 0));
results['one load'] = await measure(() => store.load(thread));

await server.close();
await kernel.close();
await oss.close();
process.stdout.write(`${JSON.stringify({ ossRequests: results, keepRevisions: 8, note: 'every 8th revision also prunes: +1 ListObjectsV2 +1 DeleteMultipleObjects' }, null, 2)}\n`);
