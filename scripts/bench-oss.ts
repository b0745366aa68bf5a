/**
 * `npm run bench:oss`: how many OSS requests the OSS thread store makes per admission, per normal
 * turn, per interrupt and per resume (docs/state-store.md "Request counts"), and how many of them
 * follow one another before `RUN_STARTED` (sequential round trips: requests sent while another is
 * in flight share its round). Runs two adapter "instances" in-process — each its own OSS provider,
 * so its own client and revision cache, as two FC instances would — on one OSS emulator bucket and
 * the built-in A2A emulator, and reads the emulator's per-operation request counters around each
 * step. Prints JSON.
 *
 * What runs before RUN_STARTED is exactly admission (`admit`, lib/core/run/admit.ts: the run route
 * emits RUN_STARTED as soon as it returns, docs/architecture.md §2.3), so the admission rows count it.
 */
import { randomUUID } from 'node:crypto';
import type { RunningServer } from '../lib/adapters/node-server/node-server.js';
import type { OssStoreProvider } from '../lib/adapters/oss-store/index.js';
import type { OssObjects } from '../lib/adapters/oss-store/objects.js';
import { SERVICE } from '../lib/core/caller.js';
import { parseRunRequest } from '../lib/core/protocol/run-request.js';
import { admit } from '../lib/core/run/admit.js';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../lib/emulators/oss/server.js';
import { benchProvider, ossAdapter } from './bench/oss-adapter.js';

const credential = { accessKeyId: 'bench-ak', accessKeySecret: randomUUID() };
const kernel = await startA2AEmulator();
const oss = await startOssEmulator({ credentials: [credential] });

/**
 * Every OSS request's start and end, across both instances, and what it touched: the thread
 * documents (`agui/threads/…`) or the event journal and its due list (`agui/journal/…`,
 * `agui/due/…`; docs/state-store.md "The event journal").
 */
const spans: Array<{ start: number; end: number; journal: boolean; operation: string }> = [];
function timed<T>(operation: string, name: string, call: () => Promise<T>): Promise<T> {
  const span = { start: performance.now(), end: Number.POSITIVE_INFINITY, journal: !name.startsWith('agui/threads/'), operation };
  spans.push(span);
  return call().finally(() => {
    span.end = performance.now();
  });
}
const timedObjects = (objects: OssObjects): OssObjects => ({
  create: (key, body) => timed('PutObject', key, () => objects.create(key, body)),
  read: (key) => timed('GetObject', key, () => objects.read(key)),
  list: (prefix, options) => timed('ListObjectsV2', prefix, () => objects.list(prefix, options)),
  remove: (key) => timed('DeleteObject', key, () => objects.remove(key)),
  removeMany: (keys) => timed('DeleteMultipleObjects', keys[0] ?? '', () => objects.removeMany(keys)),
});

/** The OSS driver of one instance: its own client and revision cache. */
function makeProvider(): OssStoreProvider {
  return benchProvider(oss.endpoint, credential, timedObjects);
}

/** One adapter instance: its own provider and its own HTTP server. */
async function instance(): Promise<{ provider: OssStoreProvider; server: RunningServer }> {
  const provider = makeProvider();
  return { provider, server: await ossAdapter(provider, kernel.url) };
}

const a = await instance();
const b = await instance();

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

async function post(server: RunningServer, path: string, payload: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(payload),
  });
  return { status: response.status, text: await response.text() };
}

/** Requests that began after every earlier request had ended: the length of the chain of round trips. */
function sequentialRounds(measured: Array<{ start: number; end: number }>): number {
  let rounds = 0;
  let busyUntil = Number.NEGATIVE_INFINITY;
  for (const span of [...measured].sort((x, y) => x.start - y.start)) {
    if (span.start >= busyUntil) rounds += 1;
    busyUntil = Math.max(busyUntil, span.end);
  }
  return rounds;
}

/**
 * The thread store's OSS requests `step` makes, by operation (zeros left out), their total and
 * sequential round trips; `journal`: the requests of the event journal and its due list, apart.
 */
async function measure(step: () => Promise<unknown>): Promise<Record<string, number>> {
  oss.resetCounters();
  const from = spans.length;
  await step();
  // A background prune belongs to the step that started it.
  await Promise.all([a.provider.idle(), b.provider.idle()]);
  const made = spans.slice(from);
  const store = made.filter((span) => !span.journal);
  const counts: Record<string, number> = {};
  for (const span of store) counts[span.operation] = (counts[span.operation] ?? 0) + 1;
  return { ...counts, total: store.length, roundTrips: sequentialRounds(store), journal: made.length - store.length };
}

/** The last event of an SSE body: each record is `id: …` then `data: …` (docs/protocol.md §4.1). */
function lastEvent(sse: string): Record<string, unknown> {
  const data = sse.split('\n').filter((line) => line.startsWith('data:'));
  return JSON.parse((data.at(-1) ?? 'data: {}').slice(5)) as Record<string, unknown>;
}

const results: Record<string, Record<string, number>> = {};

// Admission alone — the core's admit(), all that runs before RUN_STARTED: read, decide, one
// compare-and-swap. The lease is made to expire at once so the next admission is not THREAD_BUSY.
async function admission(provider: OssStoreProvider, threadId: string): Promise<void> {
  const request = parseRunRequest(body(threadId), { allowedRoots: [], caller: SERVICE });
  await admit(provider.storeFor(), request, () => ({ now: Date.now(), leaseTtlMs: 1, newExecutionId: randomUUID, leaseId: randomUUID(), graceMs: 0 }));
}
const admissionThread = `bench-${randomUUID()}`;
results['admission, new thread'] = await measure(() => admission(a.provider, admissionThread));
await new Promise((resolve) => setTimeout(resolve, 5));
results['admission, existing thread'] = await measure(() => admission(a.provider, admissionThread));
await new Promise((resolve) => setTimeout(resolve, 5));
results['admission, existing thread, last written by another instance'] = await measure(() => admission(b.provider, admissionThread));

// A normal turn on a new thread, the next turn on the same thread, then one on the other instance.
const thread = `bench-${randomUUID()}`;
const firstTurn = body(thread);
results['normal turn, new thread (hello)'] = await measure(() => post(a.server, '/', firstTurn));
results['normal turn, existing thread (hello)'] = await measure(() => post(a.server, '/', body(thread)));
results['normal turn, existing thread, previous turn on another instance'] = await measure(() => post(b.server, '/', body(thread)));

// Admissions that are refused: decided from one read, nothing written.
results['rejected admission (DUPLICATE_RUN_ID)'] = await measure(() => post(a.server, '/', firstTurn));
const busyThread = `bench-${randomUUID()}`;
const liveResponse = await fetch(`${a.server.url}/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify(body(busyThread, { text: 'long' })),
});
if (!liveResponse.body) throw new Error('the live run answered without a body');
const reader = liveResponse.body.getReader();
let seen = '';
while (!/"taskId":"/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
results['rejected admission (THREAD_BUSY)'] = await measure(() => post(a.server, '/', body(busyThread)));
const executionId = /"executionId":"([^"]+)"/.exec(seen)?.[1] ?? '';
// The cancel route's own read and write, plus the live run noticing and ending (its stream drained).
results['cancel of a live run (route + the run ending on its instance)'] = await measure(async () => {
  await post(a.server, `/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId: busyThread, rosInvocationId: 'invocation-1' });
  while (!(await reader.read()).done);
});

// An interrupt and its resume on the same instance; then another interrupt resumed on the other one.
async function interrupt(threadId: string): Promise<string> {
  const sse = (await post(a.server, '/', body(threadId, { text: 'permission' }))).text;
  const outcome = lastEvent(sse)['outcome'] as { interrupts: Array<{ id: string }> };
  return outcome.interrupts[0]?.id ?? '';
}
const resumeBody = (threadId: string, interruptId: string) => body(threadId, { resume: [{ interruptId, status: 'resolved', payload: { decision: 'allow_once' } }] });
const interruptThread = `bench-${randomUUID()}`;
let interruptId = '';
results['interrupt (permission run, new thread)'] = await measure(async () => {
  interruptId = await interrupt(interruptThread);
});
results['resume (answering the interrupt)'] = await measure(() => post(a.server, '/', resumeBody(interruptThread, interruptId)));
const otherThread = `bench-${randomUUID()}`;
const otherInterrupt = await interrupt(otherThread);
results['resume on another instance'] = await measure(() => post(b.server, '/', resumeBody(otherThread, otherInterrupt)));

// One more write on a thread with a known base: what each further save (e.g. a lease renewal) costs.
const store = a.provider.storeFor();
const loaded = await store.load(thread);
results['one save with a known base (e.g. a lease renewal)'] = await measure(() => store.save(thread, loaded?.document, loaded?.revision ?? 0));
results['one load'] = await measure(() => store.load(thread));
results['one load by another instance'] = await measure(() => makeProvider().storeFor().load(thread));

await a.server.close();
await b.server.close();
await kernel.close();
await oss.close();
process.stdout.write(
  `${JSON.stringify({ ossRequests: results, keepRevisions: 8, note: 'every 8th revision also prunes, after answering: +1 ListObjectsV2, and +1 DeleteMultipleObjects once revisions older than the hold (10 min) exist' }, null, 2)}\n`,
);
