/**
 * Every thread owned (docs/protocol.md §6.3): two people signed in with a real OpenID Connect
 * provider (test/support/oidc-provider.ts), on the file and the OSS store. Bob names Alice's threads
 * on every route — a new turn, a resume, a guidance, a cancel, a subscribe, a Last-Event-ID reattach,
 * a read-only observation from the kernel — and each answer is byte for byte the answer for a thread
 * id never used (the one exception, a new turn under a taken id, answers as a binding conflict),
 * nothing of Alice's is written, and each attempt is logged at warn with both user ids' hashes.
 * Alice herself, and a service holding the shared token, go on as before; ownership survives a
 * restart (it is in the thread document). Across two instances: test/multi-instance/ownership-across-instances.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/adapters/logger.js';
import { OidcTokenVerifier } from '../../lib/adapters/oidc/index.js';
import { userIdHash } from '../../lib/core/caller.js';
import type { ThreadStore } from '../../lib/core/ports.js';
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

async function revisionOf(store: ThreadStore, threadId: string): Promise<number | undefined> {
  return (await store.load(threadId))?.revision;
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

  it('answers Bob’s resume, cancel, subscribe and Last-Event-ID reattach on Alice’s thread exactly as for a thread that does not exist, and writes nothing', async () => {
    const alice = await aliceInterrupted(stack);
    const missing = uniqueId('never-used');
    const revision = await revisionOf(stack.store, alice.threadId);
    const identity = (threadId: string) => ({ threadId, runId: alice.runId, rosInvocationId: 'invocation-1' });
    const resumeBody = (threadId: string) => runBody({ threadId, resume: [resolved(alice.interruptId, { decision: 'allow_once' })] });
    const before = warnings(stack).length;

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
    ];

    for (const [route, bobs, forMissing] of pairs) expect(bobs, route).toEqual(forMissing);
    expect(pairs.map(([route, bobs]) => [route, bobs.status, JSON.parse(bobs.body).error.code])).toEqual([
      ['resume', 409, 'EXECUTION_LOST'],
      ['cancel', 404, 'EXECUTION_NOT_FOUND'],
      ['subscribe', 404, 'EXECUTION_NOT_FOUND'],
      ['reattach', 404, 'EXECUTION_NOT_FOUND'],
    ]);
    expect(await revisionOf(stack.store, alice.threadId)).toBe(revision);
    // Each of Bob's four attempts on Alice's thread, logged with both hashes — never the ids.
    const logged = warnings(stack).slice(before);
    expect(logged).toHaveLength(4);
    for (const line of logged) expect(line).toMatchObject({ threadId: alice.threadId, ownerUser: userIdHash('alice'), callerUser: userIdHash('bob') });
    expect(JSON.stringify(logged)).not.toMatch(/"(alice|bob)"/);

    // Alice's own: the reattach continues her run, and her answer is delivered.
    const reattached = await subscribe(stack.url, alice.executionId, identity(alice.threadId), { ...as('alice'), 'last-event-id': alice.lastEventId });
    expect(reattached.status).toBe(200);
    expect((await readRecords(reattached)).records.map((record) => record.event.type)).toEqual(['RUN_FINISHED']);
    const resumed = await stack.run(resumeBody(alice.threadId), as('alice'));
    expect(resumed.status).toBe(200);
    assertValidAgUiStream(resumed.sse.events);
    expect(resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('refuses Bob’s new turn under Alice’s thread id before anything of the thread shows — not its run ids, not that it is busy — and his guidance as for no thread', async () => {
    // Alice's pipeline, live: a new turn of hers would be THREAD_BUSY, a guidance admitted.
    const threadId = uniqueId('alice-live');
    const runId = uniqueId('run');
    const live = new LiveSse(await stack.post('/', runBody({ threadId, runId, text: 'pipeline-long', iacCode: { runMode: 'pipeline' } }), as('alice')));
    await live.until(isSessionEvent);
    const revision = await revisionOf(stack.store, threadId);
    const missing = uniqueId('never-used');

    const sameRunId = await answer(stack.post('/', runBody({ threadId, runId }), as('bob')));
    const freshRunId = await answer(stack.post('/', runBody({ threadId }), as('bob')));
    const guidance = (id: string) => runBody({ threadId: id, text: 'steer left', iacCode: { runMode: 'pipeline', activeGuidance: true } });
    const bobsGuidance = await answer(stack.post('/', guidance(threadId), as('bob')));

    for (const refused of [sameRunId, freshRunId]) {
      expect(refused.status).toBe(409);
      expect(JSON.parse(refused.body).error).toEqual({ code: 'THREAD_BINDING_CONFLICT', message: 'The thread is bound to a different workspace or user.' });
    }
    expect(bobsGuidance).toEqual(await answer(stack.post('/', guidance(missing), as('bob'))));
    expect(JSON.parse(bobsGuidance.body).error.code).toBe('EXECUTION_LOST');
    expect(await revisionOf(stack.store, threadId)).toBe(revision);

    // Alice's guidance is admitted; Alice finishes her pipeline with it.
    const steered = await stack.run(runBody({ threadId, text: 'finish now', iacCode: { runMode: 'pipeline', activeGuidance: true } }), as('alice'));
    expect(steered.sse.events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    const events = await live.rest();
    assertValidAgUiStream(events);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('lets a service (the shared token) reach Alice’s thread as before, and keeps a service’s thread from a person', async () => {
    const alice = await aliceInterrupted(stack);
    const observed = await subscribe(stack.url, alice.executionId, { threadId: alice.threadId, runId: alice.runId, rosInvocationId: 'invocation-1' }, as('service'));
    expect(observed.status).toBe(200);
    await observed.body?.cancel();

    // A thread a service opened (no userId): no person's.
    const serviceThread = uniqueId('service');
    const opened = await stack.run(runBody({ threadId: serviceThread, text: 'permission' }), as('service'));
    const executionId = (opened.sse.events.find(isSessionEvent)?.['value'] as { executionId: string }).executionId;
    const interruptId = interruptsOf(opened.sse)[0]?.id as string;
    const byAlice = await answer(cancel(stack, executionId, { threadId: serviceThread, rosInvocationId: 'invocation-1' }, as('alice')));
    expect(byAlice.status).toBe(404);
    const resume = await stack.run(runBody({ threadId: serviceThread, resume: [resolved(interruptId, { decision: 'deny' })] }), as('service'));
    expect(resume.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    // The service cancels Alice's parked execution: it acts for whoever it serves.
    const cancelled = await answer(cancel(stack, alice.executionId, { threadId: alice.threadId, rosInvocationId: 'invocation-1' }, as('service')));
    expect(cancelled).toMatchObject({ status: 200 });
    expect(JSON.parse(cancelled.body)).toEqual({ executionId: alice.executionId, status: 'cancelled' });
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
