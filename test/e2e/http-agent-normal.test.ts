/**
 * The official @ag-ui/client 1.0 HttpAgent against the adapter over loopback: its runAgent applies
 * verifyEvents and its own schemas, so a run that resolves is a stream it accepted.
 */
import { HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iacCode, uniqueId } from '../support/fixtures.js';
import { runTurn } from '../support/http-agent.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
const TOKEN = 'e2e-token';

beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { authToken: TOKEN } });
});
afterAll(async () => stack.close());

function agentFor(threadId: string): HttpAgent {
  return new HttpAgent({ url: `${stack.url}/`, headers: { authorization: `Bearer ${TOKEN}` }, threadId });
}

function runWith(agent: HttpAgent, text: string, props: Record<string, unknown> = {}) {
  agent.messages.push({ id: uniqueId('msg'), role: 'user', content: text });
  return runTurn(agent, { forwardedProps: { iacCode: iacCode(props) } });
}

describe('HttpAgent (official AG-UI client) on normal turns', () => {
  it.each(['hello', 'tools', 'thinking', 'artifact', 'complete', 'retryable-error'])('accepts the "%s" scenario and builds the assistant message', async (scenario) => {
    const agent = agentFor(uniqueId('thread'));
    const { events, result } = await runWith(agent, `${scenario} please`);
    expect(events[0]?.type).toBe('RUN_STARTED');
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
    expect(result.newMessages.some((message) => message.role === 'assistant')).toBe(true);
  });

  it('replays the whole history on a second turn of the same thread and is accepted', async () => {
    const agent = agentFor(uniqueId('thread'));
    await runWith(agent, 'hello one');
    const second = await runWith(agent, 'tools two');
    expect(second.events.at(-1)?.type).toBe('RUN_FINISHED');
    expect(agent.messages.filter((message) => message.role === 'user')).toHaveLength(2);
    // The A2A request carries only the latest user message.
    const last = stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ text?: string }> } };
    expect(last.message.parts).toEqual([{ text: 'tools two' }]);
  });

  it("surfaces RUN_ERROR with its code and the kernel's reason to the client", async () => {
    const agent = agentFor(uniqueId('thread'));
    const errors: Array<{ code?: string; message: string }> = [];
    agent.messages.push({ id: 'm1', role: 'user', content: 'fatal-error' });
    await agent.runAgent({ runId: uniqueId('run'), forwardedProps: { iacCode: iacCode() } }, { onRunErrorEvent: ({ event }) => void errors.push(event) }).catch(() => undefined);
    expect(errors).toEqual([
      expect.objectContaining({ code: 'A2A_EXECUTION_FAILED', message: expect.stringMatching(/^The A2A execution failed\. The kernel reported: .+ \(error id 3e7c17ff7f29\)$/) }),
    ]);
  });
});
