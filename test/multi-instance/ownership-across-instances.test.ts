/**
 * Ownership on every instance (docs/protocol.md §6.3, §6.11, §6.12): two real adapter processes on
 * one OSS bucket, both trusting the same real OpenID Connect provider. Alice's thread, interrupted
 * on A, is no thread to Bob on B — his resume, cancel, subscribe and Last-Event-ID reattach there are
 * answered as for a thread id never used, and his new turn under its id runs a thread of his own —
 * while Alice resumes hers on B: a person's namespace is in the keys, which every instance computes alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterProcess } from '../support/adapter-process.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, resolved } from '../support/interrupts.js';
import { subscribe } from '../support/observe.js';
import { AUDIENCE, startOidcProvider, type TestProvider } from '../support/oidc-provider.js';
import { parseSse } from '../support/sse.js';
import { readRecords } from '../support/sse-records.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

let provider: TestProvider;
let instances: TwoInstances | undefined;
let a: AdapterProcess;
let b: AdapterProcess;
const tokens = { alice: '', bob: '' };

beforeAll(async () => {
  provider = await startOidcProvider();
  instances = await startTwoInstances({ IAC_CODE_AGUI_OIDC_ISSUER: provider.issuer, IAC_CODE_AGUI_OIDC_AUDIENCE: AUDIENCE, IAC_CODE_AGUI_AUTH_TOKEN: 'service-token-9d2e' });
  ({ a, b } = instances);
  tokens.alice = (await provider.tokensFor('alice')).accessToken;
  tokens.bob = (await provider.tokensFor('bob')).accessToken;
}, 60_000);

afterAll(async () => {
  await instances?.stop();
  await provider?.close();
});

function post(instance: AdapterProcess, path: string, body: unknown, who: keyof typeof tokens, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${instance.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${tokens[who]}`, ...headers },
    body: JSON.stringify(body),
  });
}

async function answer(response: Promise<Response>): Promise<{ status: number; body: string }> {
  const got = await response;
  return { status: got.status, body: await got.text() };
}

describe('ownership across two instances', { timeout: 60_000 }, () => {
  it('keeps Bob out of Alice’s thread on the other instance, and lets Alice resume it there', async () => {
    const threadId = uniqueId('alice');
    const runId = uniqueId('run');
    const opened = await post(a, '/', runBody({ threadId, runId, text: 'permission' }), 'alice');
    const { records } = await readRecords(opened);
    const events = records.map((record) => record.event);
    const executionId = (events.find((event) => event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1')?.['value'] as { executionId: string }).executionId;
    const interruptId = interruptsOf({ events, raw: '' })[0]?.id as string;
    const lastEventId = records.at(-2)?.id as string;
    const missing = uniqueId('never-used');
    const identity = (id: string) => ({ threadId: id, runId, rosInvocationId: 'invocation-1' });
    const resume = (id: string) => runBody({ threadId: id, resume: [resolved(interruptId, { decision: 'allow_once' })] });
    const cancelPath = `/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/cancel`;
    const bearer = (who: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[who]}` });

    const routes = {
      resume: (id: string) => post(b, '/', resume(id), 'bob'),
      cancel: (id: string) => post(b, cancelPath, identity(id), 'bob'),
      subscribe: (id: string) => subscribe(b.url, executionId, identity(id), bearer('bob')),
      reattach: (id: string) => subscribe(b.url, executionId, identity(id), { ...bearer('bob'), 'last-event-id': lastEventId }),
    };
    for (const [route, call] of Object.entries(routes)) {
      const bobs = await answer(call(threadId));
      expect(bobs, route).toEqual(await answer(call(missing)));
      expect(bobs.status, route).toBeGreaterThanOrEqual(404);
    }
    // Bob's ids lead to his own namespace: he never met Alice's thread, so B has no attempt on it to log.
    expect(b.output.join('').includes("another user's")).toBe(false);

    // Bob's new turn under Alice's thread id, on B: a normal run of his own thread.
    const bobs = await post(b, '/', runBody({ threadId }), 'bob');
    expect(bobs.status).toBe(200);
    const bobsEvents = parseSse(await bobs.text()).events;
    expect(bobsEvents[0]).toMatchObject({ type: 'RUN_STARTED', threadId });
    expect(bobsEvents.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });

    const resumed = await post(b, '/', resume(threadId), 'alice');
    expect(resumed.status).toBe(200);
    expect(parseSse(await resumed.text()).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});
