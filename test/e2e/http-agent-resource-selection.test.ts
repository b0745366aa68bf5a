/**
 * A cloud resource selection driven end to end by the official @ag-ui/client 1.0 HttpAgent
 * (docs/protocol.md §5.2, §5.3): the interrupt lands in pendingInterrupts with its schema, the
 * client resumes with a value and a label, verifyEvents accepts both streams, the kernel received
 * the prefixed selection, and nothing is left pending.
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

describe('HttpAgent and a cloud resource selection', () => {
  it('interrupt → resume with a value and label → success, the tool result shown once', async () => {
    const agent = new HttpAgent({ url: `${stack.url}/`, threadId: uniqueId('thread') });
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'resource-selection for my stack' });
    const first = await run(agent, {});
    expect(first.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt).toMatchObject({ reason: 'input_required', toolCallId: 'toolu-select-vpc', metadata: { kind: 'cloud_resource_selection', selector: { id: 'vpc.vpc' } } });
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt!.id]: { status: 'resolved', payload: { value: 'vpc-123456', label: 'test-vpc' } } });
    const second = await run(agent, { resume });
    expect(second.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(second.filter((event) => event.type === 'TOOL_CALL_RESULT')).toEqual([expect.objectContaining({ toolCallId: 'toolu-select-vpc', content: 'test-vpc' })]);
    expect(agent.pendingInterrupts).toEqual([]);
    const sent = stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ text: string }> } };
    expect(sent.message.parts[0]?.text).toMatch(
      /^IAC_CODE_RESOURCE_SELECTION:\{"schemaVersion":1,"kind":"cloud_resource_selection","status":"selected",.*"value":"vpc-123456","label":"test-vpc"\}$/,
    );
  });
});
