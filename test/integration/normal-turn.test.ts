/**
 * Normal (non-interrupted) turns through real HTTP: adapter on loopback + the A2A emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { PNG_1x1, runBody, uniqueId } from '../support/fixtures.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ kernelToken: 'kernel-token-1', emulator: { token: 'kernel-token-1' } });
});
afterAll(async () => stack.close());

function lastSend(threadId: string) {
  const contextId = contextIdFor(threadId);
  const sends = stack.emulator.callsOf('SendStreamingMessage').filter((call) => (call.params as { message: { contextId: string } }).message.contextId === contextId);
  return sends.at(-1) as { params: { message: Record<string, unknown>; configuration: unknown; metadata?: unknown }; headers: Record<string, unknown> };
}

describe('a normal turn', () => {
  it('streams RUN_STARTED, session, text and RUN_FINISHED success with usage, accepted by the AG-UI oracle', async () => {
    // Arrange
    const body = runBody({ text: 'hello world', extra: { parentRunId: 'parent-run-1' } });
    // Act
    const { status, sse } = await stack.run(body);
    // Assert
    expect(status).toBe(200);
    const kinds = types(sse);
    expect(kinds[0]).toBe('RUN_STARTED');
    expect(sse.events[0]).toMatchObject({ threadId: body['threadId'], runId: body['runId'], parentRunId: 'parent-run-1' });
    expect(kinds.at(-1)).toBe('RUN_FINISHED');
    expect(sse.events.at(-1)).toMatchObject({ outcome: { type: 'success' } });
    // The three counters v0.13.1 reports, as protobuf floats (1200.0); cached tokens default to 0.
    expect(sse.events.at(-1)?.['usage']).toEqual([{ inputTokens: 1200, outputTokens: 340, totalTokens: 1540, cachedInputTokens: 0 }]);
    const text = sse.events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event['delta'])
      .join('');
    // The final status repeats the whole text (assistantFinal); it must not be emitted twice.
    expect(text).toBe('Hello from the iac-code emulator. You said: hello world');
    expect(kinds.filter((kind) => kind === 'TEXT_MESSAGE_START')).toHaveLength(1);
    const session = sse.events.find((event) => event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1');
    expect(session?.['value']).toMatchObject({
      schemaVersion: 1,
      threadId: body['threadId'],
      aguiRunId: body['runId'],
      contextId: contextIdFor(body['threadId'] as string),
      rosInvocationId: 'invocation-1',
    });
    expect((session?.['value'] as Record<string, unknown>)['taskId']).toEqual(expect.any(String));
    expect((session?.['value'] as Record<string, unknown>)['sessionId']).toMatch(/^session-/);
    await assertValidAgUiStream(sse.events);
  });

  it('frames SSE as id and data records with integer timestamps and no null fields, ids in order, with the SSE headers', async () => {
    const response = await stack.post('/', runBody());
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const raw = await response.text();
    const seqs: number[] = [];
    for (const block of raw.split('\n\n').filter(Boolean)) {
      // docs/protocol.md §4.1, §4.12: `id: <tag>.<epoch>.<seq>.<k>`, then the event.
      const match = /^id: ([0-9a-f]{10})\.1\.(\d+)\.(\d+)\ndata: (.*)$/s.exec(block);
      expect(match, block).not.toBeNull();
      seqs.push(Number(match?.[2]));
      const event = JSON.parse(match?.[4] ?? '') as Record<string, unknown>;
      expect(Number.isInteger(event['timestamp'])).toBe(true);
      const { value: _customValue, ...rest } = event;
      expect(JSON.stringify(rest)).not.toContain('null');
    }
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });

  it('sends SendStreamingMessage exactly per docs/protocol.md §7.2, §7.3', async () => {
    // Arrange
    const body = runBody({
      content: [
        { type: 'text', text: 'build this' },
        { type: 'image', source: { type: 'data', mimeType: 'image/PNG', value: PNG_1x1 }, metadata: { filename: 'before.png' } },
        { type: 'binary', mimeType: 'image/png', data: PNG_1x1, filename: '../evil.png' },
      ],
      iacCode: {
        model: '  qwen-max ',
        llmApiKey: 'sk-secret-123',
        thinking: { enabled: true, effort: 'low', budget: 1024 },
        userId: 'user-7',
        channel: 'console',
        preferredLanguage: 'zh-CN',
        candidatePresentation: 'rich',
        runMode: 'pipeline',
        pipelineName: 'vpc',
        cleanupOnly: true,
        llmHeaders: { 'X-Team': 'a' },
        alibabaCloud: { accessKeyId: 'AKID', accessKeySecret: 'AKSECRET', securityToken: 'STS', regionId: 'cn-beijing' },
      },
    });
    (body['messages'] as unknown[]).unshift({ id: 'old-user', role: 'user', content: 'earlier' }, { id: 'a1', role: 'assistant', content: 'ok' });
    // Act
    const { status } = await stack.run(body);
    // Assert
    expect(status).toBe(200);
    const call = lastSend(body['threadId'] as string);
    expect(call.headers['a2a-version']).toBe('1.0');
    expect(call.headers['authorization']).toBe('Bearer kernel-token-1');
    expect(call.params.metadata).toBeUndefined();
    expect(call.params.configuration).toEqual({ acceptedOutputModes: ['text/plain'] });
    expect(call.params.message).toEqual({
      messageId: 'message-1',
      role: 'ROLE_USER',
      contextId: contextIdFor(body['threadId'] as string),
      parts: [
        { text: 'build this' },
        { data: { filename: 'before.png', bytes: PNG_1x1 }, mediaType: 'image/png' },
        { data: { filename: 'agui-image-3', bytes: PNG_1x1 }, mediaType: 'image/png' },
      ],
      metadata: {
        iac_code: {
          cwd: '/workspace/session-1',
          iac_code_model: 'qwen-max',
          iac_code_api_key: 'sk-secret-123',
          thinking: { enabled: true, effort: 'low', budget: 1024 },
          user_id: 'user-7',
          channel: 'console',
          preferredLanguage: 'zh',
          candidatePresentation: 'rich',
          run_mode: 'pipeline',
          pipeline_name: 'vpc',
          cleanupOnly: true,
          rosInvocationId: 'invocation-1',
          alibaba_cloud_access_key_id: 'AKID',
          alibaba_cloud_access_key_secret: 'AKSECRET',
          alibaba_cloud_security_token: 'STS',
          alibaba_cloud_region_id: 'cn-beijing',
          llm_headers: { 'X-Team': 'a' },
        },
      },
    });
  });

  it('sends the minimal metadata when only the required fields are given, and forwards llm_headers {} but not an absent map', async () => {
    const minimal = runBody();
    await stack.run(minimal);
    expect(lastSend(minimal['threadId'] as string).params.message['metadata']).toEqual({
      iac_code: { cwd: '/workspace/session-1', preferredLanguage: 'en', cleanupOnly: false, rosInvocationId: 'invocation-1' },
    });
    const cleared = runBody({ iacCode: { llm_headers: {} } });
    await stack.run(cleared);
    expect((lastSend(cleared['threadId'] as string).params.message['metadata'] as { iac_code: Record<string, unknown> }).iac_code['llm_headers']).toEqual({});
  });

  it('uses the same contextId for every turn of a thread and a new executionId and task per turn', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, iacCode: { rosInvocationId: 'inv-a' } }));
    const second = await stack.run(runBody({ threadId, iacCode: { rosInvocationId: 'inv-b' } }));
    const sessionOf = (events: typeof first.sse.events) => events.find((event) => event['name'] === 'iac-code.session.v1')?.['value'] as Record<string, string>;
    const a = sessionOf(first.sse.events);
    const b = sessionOf(second.sse.events);
    expect(a.contextId).toBe(b.contextId);
    expect(a.executionId).not.toBe(b.executionId);
    expect(a.taskId).not.toBe(b.taskId);
    expect(b.rosInvocationId).toBe('inv-b');
    // A new turn never continues the previous task.
    expect(lastSend(threadId).params.message['taskId']).toBeUndefined();
  });

  it('maps tools: START/ARGS/END with sorted compact JSON, results once, and tool progress as CUSTOM', async () => {
    const { sse } = await stack.run(runBody({ text: 'tools please' }));
    const toolEvents = sse.events.filter((event) => event.type.startsWith('TOOL_CALL'));
    expect(toolEvents.map((event) => `${event.type}:${String(event['toolCallId'])}`)).toEqual([
      'TOOL_CALL_START:toolu-read-1',
      'TOOL_CALL_ARGS:toolu-read-1',
      'TOOL_CALL_END:toolu-read-1',
      'TOOL_CALL_RESULT:toolu-read-1',
      'TOOL_CALL_START:toolu-lint-1',
      'TOOL_CALL_ARGS:toolu-lint-1',
      'TOOL_CALL_END:toolu-lint-1',
      'TOOL_CALL_RESULT:toolu-lint-1',
    ]);
    expect(toolEvents[0]).toMatchObject({ toolCallName: 'read_file', parentMessageId: expect.stringMatching(/-message$/) });
    expect(toolEvents[1]?.['delta']).toBe('{"limit":200,"path":"main.tf"}');
    expect(toolEvents[3]).toMatchObject({ messageId: 'tool-result-toolu-read-1', content: 'resource "alicloud_vpc" "main" {}', role: 'tool' });
    expect(toolEvents[5]?.['delta']).toBe('{"summary":"lint main.tf"}');
    expect(toolEvents[7]?.['content']).toBe('{"error":"lint failed","line":3}');
    const progress = sse.events.filter((event) => event['name'] === 'iac-code.tool-progress.v1');
    expect(progress).toHaveLength(1);
    expect(progress[0]?.['value']).toMatchObject({ schemaVersion: 1, status: 'progress', toolUseId: 'toolu-read-1', mcp: { serverName: 'fs', progress: 1, total: 2 } });
    await assertValidAgUiStream(sse.events);
  });

  it('maps raw thinking to REASONING_* closed before the text starts, ignoring other thinking types', async () => {
    const { sse } = await stack.run(runBody({ text: 'thinking' }));
    const kinds = types(sse).filter((kind) => kind.startsWith('REASONING') || kind.startsWith('TEXT_MESSAGE_START'));
    // The two reasoning deltas may arrive merged into one event (docs/protocol.md §4.1).
    expect(kinds.filter((kind, index) => kind !== kinds[index - 1])).toEqual([
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TEXT_MESSAGE_START',
    ]);
    const reasoning = sse.events.filter((event) => event.type === 'REASONING_MESSAGE_CONTENT').map((event) => event['delta']);
    expect(reasoning.join('')).toBe('The user wants a VPC. A /16 CIDR is a safe default.');
    expect(sse.events.find((event) => event.type === 'REASONING_MESSAGE_START')).toMatchObject({ role: 'reasoning', messageId: expect.stringMatching(/^reasoning-/) });
    await assertValidAgUiStream(sse.events);
  });

  it('relays a burst of 2,000 deltas as fewer events carrying every character in order, accepted by the AG-UI oracle', async () => {
    const words = Array.from({ length: 2_000 }, (_, index) => `w${index} `);
    stack.emulator.controls.scenarios.set('burst', async (script) => {
      script.task('SUBMITTED');
      for (const word of words) script.text(word);
      script.finish('INPUT_REQUIRED');
    });
    const { sse } = await stack.run(runBody({ text: 'burst' }));
    const contents = sse.events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT');
    expect(contents.map((event) => event['delta']).join('')).toBe(words.join(''));
    // The kernel's chunks carry many deltas each; one event per delta would be 2,000 (docs/protocol.md §4.1).
    expect(contents.length).toBeLessThan(words.length / 10);
    expect(new Set(contents.map((event) => event['messageId'])).size).toBe(1);
    await assertValidAgUiStream(sse.events);
  });

  it('projects artifacts with file:// parts as iac-code.artifact.v1', async () => {
    const { sse } = await stack.run(runBody({ text: 'artifact' }));
    const artifacts = sse.events.filter((event) => event['name'] === 'iac-code.artifact.v1');
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]?.['value']).toMatchObject({
      schemaVersion: 1,
      artifactId: 'artifact-template-1',
      name: 'template.yaml',
      parts: [{ url: 'file:///workspace/template.yaml', filename: 'template.yaml', mediaType: 'application/yaml' }],
      metadata: { uri: 'file:///workspace/template.yaml', sourcePath: 'template.yaml' },
    });
  });

  it('ends COMPLETED tasks with success and a retryable error (INPUT_REQUIRED) with success and its text', async () => {
    const completed = await stack.run(runBody({ text: 'complete' }));
    expect(completed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const retryable = await stack.run(runBody({ text: 'retryable-error' }));
    expect(retryable.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const text = retryable.sse.events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event['delta'])
      .join('');
    expect(text).toBe('A temporary error occurred. Please retry.');
  });

  it('fails a run whose A2A stream ends while still WORKING and cancels the abandoned task', async () => {
    const body = runBody({ text: 'working-end' });
    const { sse } = await stack.run(body);
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED' });
    const taskId = (sse.events.find((event) => event['name'] === 'iac-code.session.v1')?.['value'] as { taskId: string }).taskId;
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
  });

  it('emits the session event before the closing events when the session id only arrives at the end', async () => {
    const { sse } = await stack.run(runBody({ text: 'late-session' }));
    const kinds = types(sse);
    expect(kinds.indexOf('CUSTOM')).toBeGreaterThan(kinds.indexOf('TEXT_MESSAGE_CONTENT'));
    expect(kinds.indexOf('CUSTOM')).toBeLessThan(kinds.indexOf('TEXT_MESSAGE_END'));
    expect(sse.events.filter((event) => event['name'] === 'iac-code.session.v1')).toHaveLength(1);
  });
});

describe('a turn against an unreachable or wrong kernel', () => {
  it('ends with RUN_ERROR A2A_UNAVAILABLE (never an HTTP error) in the request language', async () => {
    const dead = await startStack({ kernelUrl: 'http://127.0.0.1:9/' });
    try {
      const { status, sse } = await dead.run(runBody({ iacCode: { preferredLanguage: 'zh-CN' } }));
      expect(status).toBe(200);
      expect(types(sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
      expect(sse.events[1]).toMatchObject({ code: 'A2A_UNAVAILABLE', message: '本地 A2A 执行服务不可用。' });
    } finally {
      await dead.close();
    }
  });

  it('ends with A2A_UNAVAILABLE when the kernel rejects the adapter token', async () => {
    const wrongToken = await startStack({ kernelToken: 'wrong', emulator: { token: 'right' } });
    try {
      const { sse } = await wrongToken.run(runBody());
      expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
      expect(wrongToken.emulator.callsOf('SendStreamingMessage')).toHaveLength(0);
    } finally {
      await wrongToken.close();
    }
  });
});
