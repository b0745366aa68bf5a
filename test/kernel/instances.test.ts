/**
 * Two adapter instances on the OSS store in front of one real kernel (docs/architecture.md §9.7,
 * docs/protocol.md §6.12): two real adapter processes share one OSS emulator bucket (the real
 * ali-oss client) and the kernel. A thread goes on from one instance to the other, an interrupt
 * raised on one is answered on the other, and a run streaming on one is observed and cancelled
 * through the other.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildResumeArray, HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { SubscribeAgent } from '../support/subscribe-agent.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';
import {
  agentRun,
  cancelExecution,
  describeWithKernel,
  iacCodeIn,
  isTextDelta,
  kernelTaskReaches,
  liveRun,
  sessionOfEvents,
  textOfEvents,
  useKernel,
  userTurn,
} from './support/kernel-suite.js';

describeWithKernel('two adapter instances on OSS with the real kernel', () => {
  const kernel = useKernel('instances');
  let instances: TwoInstances;

  beforeAll(async () => {
    instances = await startTwoInstances({ IAC_CODE_AGUI_A2A_URL: kernel.pair.url });
  });
  afterAll(async () => instances?.stop());

  /** The same thread seen through another instance, with the conversation so far. */
  function onInstance(url: string, from: HttpAgent): HttpAgent {
    return new HttpAgent({ url: `${url}/`, threadId: from.threadId, initialMessages: from.messages });
  }

  it('a turn on A, the next on B: the model sees the whole conversation', async () => {
    const workspace = await kernel.workspace();
    const onA = new HttpAgent({ url: `${instances.a.url}/`, threadId: uniqueId('thread') });
    expect((await userTurn(onA, workspace, 'hello from instance a')).error).toBeUndefined();
    const onB = onInstance(instances.b.url, onA);
    const second = await userTurn(onB, workspace, 'hello from instance b');
    expect(second.error).toBeUndefined();
    expect(textOfEvents(second.events)).toBe('Hello from the fake model. You said: hello from instance b ');
    const last = (await kernel.pair.modelRequests()).findLast((request) => request.body.stream && JSON.stringify(request.body.messages).includes('hello from instance b'));
    expect(JSON.stringify(last?.body.messages)).toContain('hello from instance a');
  });

  it('a permission raised on A is answered on B, and the tool runs', async () => {
    const workspace = await kernel.workspace();
    const onA = new HttpAgent({ url: `${instances.a.url}/`, threadId: uniqueId('thread') });
    const asked = await userTurn(onA, workspace, 'bash it please');
    expect(asked.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    const [interrupt] = onA.pendingInterrupts;
    expect(existsSync(join(workspace.outside, 'out.txt'))).toBe(false);
    const resume = buildResumeArray(onA.pendingInterrupts, { [interrupt?.id as string]: { status: 'resolved', payload: { decision: 'allow_once' } } });
    const answered = await agentRun(onInstance(instances.b.url, onA), { resume, forwardedProps: { iacCode: iacCodeIn(workspace) } });
    expect(answered.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(await readFile(join(workspace.outside, 'out.txt'), 'utf8')).toBe('hi\n');
  });

  it('a run streaming on A is observed and cancelled through B; the kernel task is cancelled', async () => {
    const workspace = await kernel.workspace();
    const onA = new HttpAgent({ url: `${instances.a.url}/`, threadId: uniqueId('thread') });
    onA.messages.push({ id: uniqueId('msg'), role: 'user', content: 'a slow answer please' });
    const runId = uniqueId('run');
    const owner = liveRun(onA, { runId, forwardedProps: { iacCode: iacCodeIn(workspace) } });
    await owner.until(isTextDelta('part 0'));
    const { executionId, taskId } = sessionOfEvents(owner.events);
    const observer = liveRun(new SubscribeAgent(instances.b.url, executionId, onA.threadId, 'kernel-suite'), { runId });
    await observer.until(isTextDelta('part 1'));
    expect(await cancelExecution(instances.b.url, executionId, onA.threadId)).toEqual({ executionId, status: 'cancelled' });
    const [owned, observed] = await Promise.all([owner.done, observer.done]);
    expect(owned.error?.code).toBe('CANCELLED');
    // B reads the run A produces from the journal: its events, its end included (docs/protocol.md §6.15).
    expect(observed.error?.code).toBe('CANCELLED');
    expect(textOfEvents(observed.events)).toBe(textOfEvents(owned.events));
    expect(await kernelTaskReaches(kernel.pair.url, taskId, ['TASK_STATE_CANCELED'])).toBe('TASK_STATE_CANCELED');
  });
});
