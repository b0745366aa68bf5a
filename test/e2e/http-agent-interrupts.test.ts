/**
 * Interrupt → resume → success with the official @ag-ui/client 1.0 HttpAgent: its
 * pendingInterrupts and resume support, with verifyEvents accepting every stream.
 */
import { buildResumeArray, HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { turnEvents as run } from '../support/http-agent.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

describe('HttpAgent interrupt flows', () => {
  it('permission: pendingInterrupts after the first run, resume allow_once, success and no pending left', async () => {
    const agent = new HttpAgent({ url: `${stack.url}/`, threadId: uniqueId('thread') });
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'permission to run a plan' });
    const first = await run(agent, {});
    expect(first.at(-1)?.type).toBe('RUN_FINISHED');
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt).toMatchObject({ reason: 'tool_call', toolCallId: 'toolu-shell-1' });
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt!.id]: { status: 'resolved', payload: { decision: 'allow_once' } } });
    const second = await run(agent, { resume });
    expect(second.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('question → chained permission → success across three runs', async () => {
    const agent = new HttpAgent({ url: `${stack.url}/`, threadId: uniqueId('thread') });
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'question first' });
    await run(agent, {});
    const question = agent.pendingInterrupts[0]!;
    const answered = await run(agent, { resume: buildResumeArray(agent.pendingInterrupts, { [question.id]: { status: 'resolved', payload: { freeText: 'two zones' } } }) });
    expect(answered.some((event) => event.type === 'TOOL_CALL_RESULT')).toBe(true);
    expect(agent.pendingInterrupts).toEqual([]);
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'permission-chain now' });
    await run(agent, {});
    const first = agent.pendingInterrupts[0]!;
    await run(agent, { resume: buildResumeArray(agent.pendingInterrupts, { [first.id]: { status: 'resolved', payload: { decision: 'allow_once' } } }) });
    const second = agent.pendingInterrupts[0]!;
    expect(second.id).not.toBe(first.id);
    const last = await run(agent, { resume: buildResumeArray(agent.pendingInterrupts, { [second.id]: { status: 'cancelled' } }) });
    expect(last.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('sub-pipeline and two sideband permissions resume through SendMessage', async () => {
    for (const scenario of ['subpipeline-permission', 'two-permissions']) {
      const agent = new HttpAgent({ url: `${stack.url}/`, threadId: uniqueId('thread') });
      agent.messages.push({ id: uniqueId('msg'), role: 'user', content: scenario });
      await run(agent, {});
      const responses = Object.fromEntries(agent.pendingInterrupts.map((interrupt) => [interrupt.id, { status: 'resolved' as const, payload: { decision: 'allow_once' } }]));
      const resumed = await run(agent, { resume: buildResumeArray(agent.pendingInterrupts, responses) });
      expect(resumed.at(-1), scenario).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    }
  });
});
