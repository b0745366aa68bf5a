/**
 * Every thread owned (docs/protocol.md §6.3): two people signed in with a real OpenID Connect
 * provider (test/support/oidc-provider.ts), on the file and the OSS store. A person's thread ids are
 * their own namespace (§6.3 "Namespaces", §6.11): Bob naming Alice's thread ids on every route — a
 * resume, a guidance, a cancel, a subscribe, a Last-Event-ID reattach, a read-only observation from
 * the kernel — gets byte for byte the answer for a thread id never used, and a new turn starts a
 * thread of his own; nothing of Alice's is written, and Alice goes on as before. A service (the
 * shared token) addresses the shared namespace, where people's threads are not. The separation
 * survives a restart (it is in the keys). Across two instances: test/multi-instance/ownership-across-instances.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/adapters/logger.js';
import { OidcTokenVerifier } from '../../lib/adapters/oidc/index.js';
import { personCaller, SERVICE } from '../../lib/core/caller.js';
import type { StoredDocument, ThreadStore } from '../../lib/core/ports.js';
import { threadStoreFor } from '../../lib/core/thread/thread-address.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, resolved } from '../support/interrupts.js';
import { isSessionEvent, LiveSse } from '../support/live-sse.js';
import { subscribe } from '../support/observe.js';
import { AUDIENCE, startOidcProvider, type TestProvider } from '../support/oidc-provider.js';
import { ossStore } from '../support/oss.js';
import { readRecords } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';

const SERVICE_TOKEN = 'ros-service-token-81c4';

let provider: TestProvider;
let emulator: A2AEmulator;
let oss: OssEmulator;
const tokens: { alice: string; bob: string } = { alice: '', bob: '' };

beforeAll(async () => {
  [provider, emulator, oss] = await Promise.all([startOidcProvider(), startA2AEmulator({ silenceMs: 1_500 }), startOssEmulator()]);
  [tokens.alice, tokens.bob] = await Promise.all([provider.tokensFor('alice').then((t) => t.accessToken), provider.tokensFor('bob').then((t) => t.accessToken)]);
}, 30_000);
afterAll(async () => {
  await Promise.all([provider?.close(), emulator?.close(), oss?.close()]);
});

const as = (who: keyof typeof tokens | 'service'): Record<string, string> => ({ authorization: `Bearer ${who === 'service' ? SERVICE_TOKEN : tokens[who]}` });

function verifier(): OidcTokenVerifier {
  return new OidcTokenVerifier(
    { issuer: provider.issuer, audiences: [AUDIENCE], clients: undefined, userClaim: 'sub', console: undefined },
    { clock: Date.now, logger: createLogger(() => undefined) },
  );
}

async function stackOn(store: 'file' | 'oss', extra: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({
    emulatorInstance: emulator,
    ...(store === 'file' ? { store: 'file' } : { store: ossStore(oss) }),
    config: { authToken: SERVICE_TOKEN },
    tokens: verifier(),
    ...extra,
  });
}

/** `GET /extensions/iac-code/v1/threads/{threadId}` + `suffix` (docs/protocol.md §6.16). */
function threadRead(stack: Stack, threadId: string, suffix: '' | '/messages', headers: Record<string, string>): Promise<Response> {
  return fetch(`${stack.url}/extensions/iac-code/v1/threads/${encodeURIComponent(threadId)}${suffix}`, { headers });
}

interface Answer {
  status: number;
  body: string;
}

async function answer(response: Promise<Response>): Promise<Answer> {
  const got = await response;
  return { status: got.status, body: await got.text() };
}

function cancel(stack: Stack, executionId: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return stack.post(`/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/cancel`, body, headers);
}

/** A thread as its owner's requests address it: a person's namespace, or the shared one (docs/protocol.md §6.11). */
function storedAs(store: ThreadStore, who: keyof typeof tokens | 'service', threadId: string): Promise<StoredDocument | undefined> {
  return threadStoreFor(store, who === 'service' ? SERVICE : personCaller(who)).load(threadId);
}

function warnings(stack: Stack): Array<Record<string, unknown>> {
  return stack.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record['level'] === 'warn' && String(record['message']).includes("another user's"));
}

/** Alice's thread parked on a permission: its execution, its pending interrupt, the last event id of its run. */
async function aliceInterrupted(stack: Stack): Promise<{ threadId: string; runId: string; executionId: string; interruptId: string; lastEventId: string }> {
  const threadId = uniqueId('alice');
  const runId = uniqueId('run');
  const response = await stack.post('/', runBody({ threadId, runId, text: 'permission' }), as('alice'));
  expect(response.status).toBe(200);
  const { records } = await readRecords(response);
  const events = records.map((record) => record.event);
  assertValidAgUiStream(events);
  const executionId = (events.find((event) => event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1')?.['value'] as { executionId: string }).executionId;
  const interruptId = interruptsOf({ events, raw: '' })[0]?.id as string;
  return { threadId, runId, executionId, interruptId, lastEventId: records.at(-2)?.id as string };
}

describe.each(['file', 'oss'] as const)('thread ownership on the %s store (docs/protocol.md §6.3)', (kind) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await stackOn(kind);
  }, 30_000);
  afterAll(async () => stack?.close());

  it('answers Bob’s resume, cancel, subscribe, Last-Event-ID reattach and thread reads on Alice’s thread id exactly as for a thread id never used, and writes nothing of hers', async () => {
    const alice = await aliceInterrupted(stack);
    const missing = uniqueId('never-used');
    const before = await storedAs(stack.store, 'alice', alice.threadId);
    expect(before?.revision).toBeGreaterThan(0);
    const identity = (threadId: string) => ({ threadId, runId: alice.runId, rosInvocationId: 'invocation-1' });
    const resumeBody = (threadId: string) => runBody({ threadId, resume: [resolved(alice.interruptId, { decision: 'allow_once' })] });
    const warned = warnings(stack).length;

    const pairs: Array<[string, Answer, Answer]> = [
      ['resume', await answer(stack.post('/', resumeBody(alice.threadId), as('bob'))), await answer(stack.post('/', resumeBody(missing), as('bob')))],
      ['cancel', await answer(cancel(stack, alice.executionId, identity(alice.threadId), as('bob'))), await answer(cancel(stack, alice.executionId, identity(missing), as('bob')))],
      [
        'subscribe',
        await answer(subscribe(stack.url, alice.executionId, identity(alice.threadId), as('bob'))),
        await answer(subscribe(stack.url, alice.executionId, identity(missing), as('bob'))),
      ],
      [
        'reattach',
        await answer(subscribe(stack.url, alice.executionId, identity(alice.threadId), { ...as('bob'), 'last-event-id': alice.lastEventId })),
        await answer(subscribe(stack.url, alice.executionId, identity(missing), { ...as('bob'), 'last-event-id': alice.lastEventId })),
      ],
      ['thread state', await answer(threadRead(stack, alice.threadId, '', as('bob'))), await answer(threadRead(stack, missing, '', as('bob')))],
      ['thread messages', await answer(threadRead(stack, alice.threadId, '/messages', as('bob'))), await answer(threadRead(stack, missing, '/messages', as('bob')))],
      [
        'thread subscribe',
        await answer(stack.post(`/extensions/iac-code/v1/threads/${encodeURIComponent(alice.threadId)}/subscribe`, {}, as('bob'))),
        await answer(stack.post(`/extensions/iac-code/v1/threads/${encodeURIComponent(missing)}/subscribe`, {}, as('bob'))),
      ],
    ];

    for (const [route, bobs, forMissing] of pairs) expect(bobs, route).toEqual(forMissing);
    expect(pairs.map(([route, bobs]) => [route, bobs.status, JSON.parse(bobs.body).error.code])).toEqual([
      ['resume', 409, 'EXECUTION_LOST'],
      ['cancel', 404, 'EXECUTION_NOT_FOUND'],
      ['subscribe', 404, 'EXECUTION_NOT_FOUND'],
      ['reattach', 404, 'EXECUTION_NOT_FOUND'],
      ['thread state', 404, 'NOT_FOUND'],
      ['thread messages', 404, 'NOT_FOUND'],
      ['thread subscribe', 404, 'NOT_FOUND'],
    ]);
    // Alice reads her own.
    const state = await threadRead(stack, alice.threadId, '', as('alice'));
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({ threadId: alice.threadId, run: { executionId: alice.executionId, state: 'interrupted' } });
    expect(await storedAs(stack.store, 'alice', alice.threadId)).toEqual(before);
    expect(await storedAs(stack.store, 'bob', alice.threadId)).toBeUndefined();
    // Bob's ids lead to his own namespace: he never met Alice's thread, so there is no attempt on it to log.
    expect(warnings(stack).slice(warned)).toEqual([]);

    // Alice's own: the reattach continues her run, and her answer is delivered.
    const reattached = await subscribe(stack.url, alice.executionId, identity(alice.threadId), { ...as('alice'), 'last-event-id': alice.lastEventId });
    expect(reattached.status).toBe(200);
    expect((await readRecords(reattached)).records.map((record) => record.event.type)).toEqual(['RUN_FINISHED']);
    const resumed = await stack.run(resumeBody(alice.threadId), as('alice'));
    expect(resumed.status).toBe(200);
    assertValidAgUiStream(resumed.sse.events);
    expect(resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('starts Bob’s own thread for his new turn under Alice’s thread id — a normal run, nothing of hers shown or touched — and answers his guidance as for no thread', async () => {
    // Alice's pipeline, live: a new turn of hers would be THREAD_BUSY, a guidance admitted.
    const threadId = uniqueId('alice-live');
    const runId = uniqueId('run');
    const live = new LiveSse(await stack.post('/', runBody({ threadId, runId, text: 'pipeline-long', iacCode: { runMode: 'pipeline' } }), as('alice')));
    await live.until(isSessionEvent);
    const hers = await storedAs(stack.store, 'alice', threadId);
    const missing = uniqueId('never-used');
    const guidance = (id: string) => runBody({ threadId: id, text: 'steer left', iacCode: { runMode: 'pipeline', activeGuidance: true } });
    // Before Bob has a thread of that id: his guidance is answered as for one never used.
    const bobsGuidance = await answer(stack.post('/', guidance(threadId), as('bob')));
    expect(bobsGuidance).toEqual(await answer(stack.post('/', guidance(missing), as('bob'))));
    expect(JSON.parse(bobsGuidance.body).error.code).toBe('EXECUTION_LOST');

    // Bob's new turns — under Alice's run id too — are normal runs of his own thread, which is not busy.
    const sameRunId = await stack.run(runBody({ threadId, runId }), as('bob'));
    const freshRunId = await stack.run(runBody({ threadId }), as('bob'));
    for (const own of [sameRunId, freshRunId]) {
      expect(own.status).toBe(200);
      assertValidAgUiStream(own.sse.events);
      expect(own.sse.events[0]).toMatchObject({ type: 'RUN_STARTED', threadId });
      expect(own.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    }
    const bobs = (await storedAs(stack.store, 'bob', threadId))?.document as { userId: string; contextId: string; runDigests: Record<string, string> };
    expect(bobs.userId).toBe('bob');
    expect(Object.keys(bobs.runDigests)).toEqual([runId, freshRunId.sse.events[0]?.['runId']]);
    const aliceDocument = hers?.document as { contextId: string; runDigests: Record<string, string> };
    expect(bobs.contextId).not.toBe(aliceDocument.contextId);
    // Alice's thread, byte for byte as it was: not a revision more.
    expect(await storedAs(stack.store, 'alice', threadId)).toEqual(hers);
    expect(await storedAs(stack.store, 'service', threadId)).toBeUndefined();

    // Alice's guidance is admitted; Alice finishes her pipeline with it.
    const steered = await stack.run(runBody({ threadId, text: 'finish now', iacCode: { runMode: 'pipeline', activeGuidance: true } }), as('alice'));
    expect(steered.sse.events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    const events = await live.rest();
    assertValidAgUiStream(events);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });

    // Alice's next turn goes on her thread, which knows none of Bob's run ids.
    const next = await stack.run(runBody({ threadId }), as('alice'));
    expect(next.status).toBe(200);
    expect(next.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    const after = (await storedAs(stack.store, 'alice', threadId))?.document as { contextId: string; runDigests: Record<string, string> };
    expect(after.contextId).toBe(aliceDocument.contextId);
    expect(Object.keys(after.runDigests)).not.toContain(freshRunId.sse.events[0]?.['runId']);
  });

  it('keeps the shared namespace (a service, the shared token) and people’s namespaces apart, both ways', async () => {
    // A service naming Alice's thread id addresses the shared thread of that id — none: as for an id never used.
    const alice = await aliceInterrupted(stack);
    const before = await storedAs(stack.store, 'alice', alice.threadId);
    const missing = uniqueId('never-used');
    const identity = (threadId: string) => ({ threadId, runId: alice.runId, rosInvocationId: 'invocation-1' });
    const observed = await answer(subscribe(stack.url, alice.executionId, identity(alice.threadId), as('service')));
    expect(observed).toEqual(await answer(subscribe(stack.url, alice.executionId, identity(missing), as('service'))));
    expect(observed.status).toBe(404);
    const servicesCancel = await answer(cancel(stack, alice.executionId, identity(alice.threadId), as('service')));
    expect(servicesCancel).toEqual(await answer(cancel(stack, alice.executionId, identity(missing), as('service'))));
    expect(servicesCancel.status).toBe(404);
    expect(await storedAs(stack.store, 'alice', alice.threadId)).toEqual(before);

    // A thread a service opened (no userId): no person's.
    const serviceThread = uniqueId('service');
    const opened = await stack.run(runBody({ threadId: serviceThread, text: 'permission' }), as('service'));
    const executionId = (opened.sse.events.find(isSessionEvent)?.['value'] as { executionId: string }).executionId;
    const interruptId = interruptsOf(opened.sse)[0]?.id as string;
    const byAlice = await answer(cancel(stack, executionId, { threadId: serviceThread, rosInvocationId: 'invocation-1' }, as('alice')));
    expect(byAlice.status).toBe(404);
    const resume = await stack.run(runBody({ threadId: serviceThread, resume: [resolved(interruptId, { decision: 'deny' })] }), as('service'));
    expect(resume.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });

    // A thread a service opened declaring Alice's user id stays in the shared namespace: bound to her,
    // but not where her own requests lead — her new turn under that id starts her own thread.
    const forAlice = uniqueId('service-for-alice');
    const served = await stack.run(runBody({ threadId: forAlice, iacCode: { userId: 'alice' } }), as('service'));
    expect(served.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    const shared = await storedAs(stack.store, 'service', forAlice);
    expect((shared?.document as { userId: string }).userId).toBe('alice');
    const own = await stack.run(runBody({ threadId: forAlice }), as('alice'));
    expect(own.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(await storedAs(stack.store, 'service', forAlice)).toEqual(shared);
    expect((await storedAs(stack.store, 'alice', forAlice))?.revision).toBeGreaterThan(0);
  });
});

describe('thread ownership on a store without a journal: the observation read from the kernel', () => {
  it('answers Bob’s subscribe as for no thread, and observes for Alice', async () => {
    const stack = await stackOn('file', { journal: false });
    try {
      const alice = await aliceInterrupted(stack);
      const identity = (threadId: string) => ({ threadId, runId: alice.runId, rosInvocationId: 'invocation-1' });
      const bobs = await answer(subscribe(stack.url, alice.executionId, identity(alice.threadId), as('bob')));
      expect(bobs).toEqual(await answer(subscribe(stack.url, alice.executionId, identity(uniqueId('never-used')), as('bob'))));
      expect(bobs.status).toBe(404);
      const hers = await subscribe(stack.url, alice.executionId, identity(alice.threadId), as('alice'));
      expect(hers.status).toBe(200);
      const events = (await readRecords(hers)).records.map((record) => record.event);
      assertValidAgUiStream(events);
      expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    } finally {
      await stack.close();
    }
  });
});

describe('thread ownership across a restart (file store)', () => {
  it('still keeps Bob out of Alice’s thread, and lets Alice resume it', async () => {
    const first = await stackOn('file');
    const alice = await aliceInterrupted(first);
    await first.close();
    const restarted = await stackOn('file', { stateDir: first.stateDir as string });
    try {
      const resumeBody = runBody({ threadId: alice.threadId, resume: [resolved(alice.interruptId, { decision: 'allow_once' })] });
      const bobs = await answer(restarted.post('/', resumeBody, as('bob')));
      expect(bobs.status).toBe(409);
      expect(JSON.parse(bobs.body).error.code).toBe('EXECUTION_LOST');
      const hers = await restarted.run(resumeBody, as('alice'));
      expect(hers.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    } finally {
      await restarted.close();
    }
  });
});
