/**
 * Normal turns in front of the real kernel (docs/architecture.md §9.7): text, each read-only tool,
 * a 200 KB answer, an image the model really receives, and several turns of one thread — what the
 * kernel sent the model shows the conversation goes on.
 */
import type { BaseEvent } from '@ag-ui/client';
import { expect, it } from 'vitest';
import { PNG_1x1, uniqueId } from '../support/fixtures.js';
import { imagePart } from '../support/images.js';
import { agentRun, describeWithKernel, iacCodeIn, sessionOfEvents, textOfEvents, useKernel, userTurn } from './support/kernel-suite.js';

function ofType(events: readonly BaseEvent[], type: string): Array<BaseEvent & Record<string, unknown>> {
  return events.filter((event) => event.type === type) as Array<BaseEvent & Record<string, unknown>>;
}

describeWithKernel('turns with the real kernel', () => {
  const kernel = useKernel('turns');

  it('streams a text answer once, with usage and the session identities, and ends the turn in success', async () => {
    const workspace = await kernel.workspace();
    const { events, error } = await userTurn(kernel.agent(), workspace, 'hello there');
    expect(error).toBeUndefined();
    // The kernel repeats the whole answer as assistantFinal: it is shown once.
    expect(textOfEvents(events)).toBe('Hello from the fake model. You said: hello there ');
    const finished = events.at(-1) as BaseEvent & Record<string, unknown>;
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, usage: [{ inputTokens: 100, outputTokens: 20, totalTokens: 120, cachedInputTokens: 0 }] });
    const session = sessionOfEvents(events);
    expect(session.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['files', 'list_files', 'README.md'],
    ['read', 'read_file', '# demo workspace'],
  ])('runs the "%s" tool (%s) and shows its call and its result', async (word, tool, inResult) => {
    const workspace = await kernel.workspace();
    const { events, error } = await userTurn(kernel.agent(), workspace, `${word} please`);
    expect(error).toBeUndefined();
    const [start] = ofType(events, 'TOOL_CALL_START');
    expect(start).toMatchObject({ toolCallName: tool, toolCallId: 'call_fake_1' });
    // The kernel reports no raw input, only the names and types of its fields (docs/protocol.md §4.7).
    const args = JSON.parse(
      ofType(events, 'TOOL_CALL_ARGS')
        .map((event) => event['delta'])
        .join(''),
    ) as { summary: { tool_name: string; fields: Record<string, unknown> } };
    expect(args.summary).toEqual({ tool_name: tool, fields: { path: { type: 'str' } } });
    const [result] = ofType(events, 'TOOL_CALL_RESULT');
    expect(result?.['content']).toContain(inResult);
    expect(textOfEvents(events)).toBe('Let me check. Done: the tool answered. ');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('relays a 200 KB answer whole', async () => {
    const workspace = await kernel.workspace();
    const { events, error } = await userTurn(kernel.agent(), workspace, 'a big answer please');
    expect(error).toBeUndefined();
    expect(textOfEvents(events)).toBe(`${'x'.repeat(2047)}\n`.repeat(100));
  });

  it('sends an image the model receives', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    const before = (await kernel.pair.modelRequests()).length;
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: [{ type: 'text', text: 'what is in this picture' }, imagePart('image/png', PNG_1x1) as never] });
    const { events, error } = await agentRun(agent, { forwardedProps: { iacCode: iacCodeIn(workspace) } });
    expect(error).toBeUndefined();
    expect(textOfEvents(events)).toBe('I received 1 image(s). ');
    const sent = (await kernel.pair.modelRequests()).slice(before).find((request) => request.body.stream);
    const user = sent?.body.messages?.filter((message) => message.role === 'user').at(-1);
    expect(user?.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'image_url', image_url: expect.objectContaining({ url: expect.stringMatching(/^data:image\/png;base64,/) }) })]),
    );
  });

  it('goes on with the same conversation on the next turn of the thread', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    const first = await userTurn(agent, workspace, 'hello first turn');
    const second = await userTurn(agent, workspace, 'hello second turn');
    expect(second.error).toBeUndefined();
    expect(textOfEvents(second.events)).toBe('Hello from the fake model. You said: hello second turn ');
    // A new execution on the same A2A context and iac-code session (docs/protocol.md §6.5).
    expect(sessionOfEvents(second.events).executionId).not.toBe(sessionOfEvents(first.events).executionId);
    expect(sessionOfEvents(second.events).sessionId).toBe(sessionOfEvents(first.events).sessionId);
    const calls = (await kernel.pair.modelRequests()).filter((request) => request.body.stream);
    const last = calls.findLast((request) => JSON.stringify(request.body.messages).includes('hello second turn'));
    const said = (last?.body.messages ?? []).map((message) => `${message.role}: ${JSON.stringify(message.content)}`).join('\n');
    expect(said).toContain('hello first turn');
    expect(said).toContain('Hello from the fake model. You said: hello first turn');
  });

  it('rebuilds the thread’s conversation from the kernel’s tasks, under the ids the live runs streamed (GET …/threads/{id}/messages)', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    const first = await userTurn(agent, workspace, 'hello first turn');
    const second = await userTurn(agent, workspace, 'files please');
    expect(second.error).toBeUndefined();
    const response = await fetch(`${kernel.stack.url}/extensions/iac-code/v1/threads/${encodeURIComponent(agent.threadId)}/messages`);
    expect(response.status).toBe(200);
    const { messages } = (await response.json()) as { messages: Array<{ id: string; role: string; content: string }> };
    // The real kernel answers ListTasks (docs/protocol.md §6.16): both turns, oldest first; tools are not in it.
    // iac-code 0.13.1 keeps no user message in a task's history, so the conversation is the assistant's side.
    expect(messages.map(({ role, content }) => [role, content])).toEqual([
      ['assistant', 'Hello from the fake model. You said: hello first turn '],
      ['assistant', 'Let me check. Done: the tool answered. '],
    ]);
    const streamedIds = [first, second].flatMap((turn) => ofType(turn.events, 'TEXT_MESSAGE_START').map((event) => event['messageId']));
    expect(messages.filter((message) => message.role === 'assistant').map((message) => message.id)).toEqual([...new Set(streamedIds)]);
  });
});
