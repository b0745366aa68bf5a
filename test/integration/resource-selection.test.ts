/**
 * The cloud_resource_selection interrupt through real HTTP against the emulator, which parses the
 * answer as strictly as the kernel (docs/protocol.md §5.2, §5.3, §5.8, §7.13): the interrupt and
 * its schema, the exact prefixed compact-JSON text part byte for byte, one TOOL_CALL_RESULT on a
 * selection and none on a cancel, a cancel that does not cancel the task, invalid payloads and
 * kernel refusals that keep the interrupt pending, and an adapter restart in between.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { RESOURCE_SELECTION_PREFIX } from '../../lib/core/interrupts/resource-selection.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { cancelled, type InterruptShape, interruptsOf, lastEvent, resolved, sessionValue, threadCalls } from '../support/interrupts.js';
import type { SseRecord } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

interface SentMessage {
  messageId: string;
  taskId: string;
  contextId: string;
  parts: Array<{ text?: string }>;
}

/** The answers the adapter sent on a thread (every SendStreamingMessage after the new turn). */
function answersSent(on: Stack, threadId: string): SentMessage[] {
  return threadCalls(on, threadId, 'SendStreamingMessage')
    .slice(1)
    .map((call) => (call.params as { message: SentMessage }).message);
}

function toolResults(sse: SseRecord) {
  return sse.events.filter((event) => event.type === 'TOOL_CALL_RESULT');
}

function text(sse: SseRecord): string {
  return sse.events.map((event) => (event.type === 'TEXT_MESSAGE_CONTENT' ? String(event['delta']) : '')).join('');
}

async function selection(on: Stack, scenario = 'resource-selection'): Promise<{ threadId: string; interrupt: InterruptShape; taskId: string; sse: SseRecord }> {
  const threadId = uniqueId('thread');
  const first = await on.run(runBody({ threadId, text: scenario }));
  const [interrupt] = interruptsOf(first.sse);
  return { threadId, interrupt: interrupt!, taskId: String(sessionValue(first.sse)?.['taskId']), sse: first.sse };
}

async function pending(threadId: string): Promise<string[]> {
  const document = (await (stack.store as FileThreadStore).load(threadId))?.document as { execution: { pending: Array<{ id: string }> } };
  return document.execution.pending.map((item) => item.id);
}

describe('a cloud_resource_selection interrupt', () => {
  it('is an input_required interrupt with the prompt, the toolCallId, the value|freeText schema and the selector kept durably', async () => {
    const { threadId, interrupt, sse } = await selection(stack);
    expect(interrupt.id).toMatch(/^resource-[0-9a-f]{32}$/);
    expect(interrupt).toMatchObject({ reason: 'input_required', toolCallId: 'toolu-select-vpc', message: 'Choose the VPC to deploy into.' });
    expect(interrupt.responseSchema).toEqual({
      oneOf: [
        { type: 'object', required: ['value'], properties: { value: { type: 'string', minLength: 1 }, label: { type: 'string' } }, additionalProperties: false },
        { type: 'object', required: ['freeText'], properties: { freeText: { type: 'string', minLength: 1 } }, additionalProperties: false },
      ],
    });
    expect(interrupt.metadata).toMatchObject({
      schemaVersion: 1,
      kind: 'cloud_resource_selection',
      standardOptions: [],
      selector: { id: 'vpc.vpc', associationProperty: 'ALIYUN::VPC::VPC::VPCId', outputKind: 'resource_id', source: null },
    });
    const stored = (await (stack.store as FileThreadStore).load(threadId))?.document as { execution: { pending: Array<{ input: Record<string, unknown> }> } };
    expect(stored.execution.pending[0]?.input['selector']).toMatchObject({ id: 'vpc.vpc', associationPropertyMetadata: { RegionId: 'cn-hangzhou' } });
    await assertValidAgUiStream(sse.events);
  });

  it('sends a selected value and label as one exact prefixed compact-JSON text part, with one TOOL_CALL_RESULT', async () => {
    const { threadId, interrupt, taskId } = await selection(stack);
    const body = runBody({ threadId, resume: [resolved(interrupt.id, { value: 'vpc-123456', label: 'test-vpc' })] });
    const second = await stack.run(body);
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const [sent] = answersSent(stack, threadId);
    expect(sent).toMatchObject({ messageId: `agui-resume-${String(body['runId'])}`, taskId, contextId: contextIdFor(threadId) });
    expect(sent?.parts).toEqual([
      {
        text:
          'IAC_CODE_RESOURCE_SELECTION:{"schemaVersion":1,"kind":"cloud_resource_selection","status":"selected",' +
          `"requestTaskId":"${taskId}","contextId":"${contextIdFor(threadId)}","inputId":"${interrupt.id}","toolUseId":"toolu-select-vpc",` +
          '"selectorId":"vpc.vpc","value":"vpc-123456","label":"test-vpc"}',
      },
    ]);
    expect(toolResults(second.sse)).toEqual([expect.objectContaining({ toolCallId: 'toolu-select-vpc', content: 'test-vpc' })]);
    expect(text(second.sse)).toContain('Using vpc-123456 (test-vpc).');
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
    expect(await pending(threadId)).toEqual([]);
    await assertValidAgUiStream(second.sse.events);
  });

  it('sends free text as both value and label, and a value without label labelled by the value', async () => {
    const free = await selection(stack);
    const second = await stack.run(runBody({ threadId: free.threadId, resume: [resolved(free.interrupt.id, { freeText: 'vpc-987654' })] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const json = JSON.parse(String(answersSent(stack, free.threadId)[0]?.parts[0]?.text).slice(RESOURCE_SELECTION_PREFIX.length));
    expect([json.value, json.label]).toEqual(['vpc-987654', 'vpc-987654']);
    expect(toolResults(second.sse).map((event) => event['content'])).toEqual(['vpc-987654']);

    const bare = await selection(stack);
    await stack.run(runBody({ threadId: bare.threadId, resume: [resolved(bare.interrupt.id, { value: 'vpc-思源' })] }));
    const sentText = String(answersSent(stack, bare.threadId)[0]?.parts[0]?.text);
    // Non-ASCII is kept as it is (no \u escapes), as the kernel's encoder writes it.
    expect(sentText.endsWith('"selectorId":"vpc.vpc","value":"vpc-思源","label":"vpc-思源"}')).toBe(true);
  });

  it('sends a cancellation as a canceled selection with optionsEmpty, does not cancel the task and emits no TOOL_CALL_RESULT', async () => {
    const { threadId, interrupt, taskId } = await selection(stack);
    const second = await stack.run(runBody({ threadId, resume: [{ ...cancelled(interrupt.id), payload: { optionsEmpty: true } }] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(answersSent(stack, threadId)[0]?.parts).toEqual([
      {
        text:
          'IAC_CODE_RESOURCE_SELECTION:{"schemaVersion":1,"kind":"cloud_resource_selection","status":"canceled",' +
          `"requestTaskId":"${taskId}","contextId":"${contextIdFor(threadId)}","inputId":"${interrupt.id}","toolUseId":"toolu-select-vpc","optionsEmpty":true}`,
      },
    ]);
    expect(toolResults(second.sse)).toEqual([]);
    expect(text(second.sse)).toContain('No resources to choose from');
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).not.toContain(taskId);
    const document = (await (stack.store as FileThreadStore).load(threadId))?.document as { execution: { executionId: string }; terminalExecutions: Record<string, string> };
    expect(document.terminalExecutions[document.execution.executionId]).toBeUndefined();
  });

  it('sends a cancellation without payload without optionsEmpty', async () => {
    const { threadId, interrupt } = await selection(stack);
    await stack.run(runBody({ threadId, resume: [cancelled(interrupt.id)] }));
    expect(String(answersSent(stack, threadId)[0]?.parts[0]?.text)).toMatch(/"status":"canceled",.*"toolUseId":"toolu-select-vpc"}$/);
  });

  it('copies a derived selector source verbatim after the label', async () => {
    const { threadId, interrupt } = await selection(stack, 'resource-selection-derived');
    expect(interrupt.metadata['selector']).toMatchObject({ id: 'redis.connection_url', source: { selector_id: 'redis.instance', value: 'r-bp1example' } });
    const second = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: 'redis://r-bp1example.redis.rds.aliyuncs.com:6379' })] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const sentText = String(answersSent(stack, threadId)[0]?.parts[0]?.text);
    expect(sentText).toContain(
      '"selectorId":"redis.connection_url","value":"redis://r-bp1example.redis.rds.aliyuncs.com:6379","label":"redis://r-bp1example.redis.rds.aliyuncs.com:6379",' +
        '"source":{"selector_id":"redis.instance","value":"r-bp1example","association_property_metadata":{"RegionId":"cn-hangzhou"}}}',
    );
  });

  it('rejects invalid payloads with RESUME_PAYLOAD_INVALID, sending nothing and keeping it pending; a corrected answer then succeeds', async () => {
    const { threadId, interrupt } = await selection(stack);
    const invalid: Array<{ status: string; payload?: unknown }> = [
      { status: 'resolved', payload: { value: '' } },
      { status: 'resolved', payload: { value: 'vpc-1', extra: true } },
      { status: 'resolved', payload: { value: 'vpc-1', freeText: 'both' } },
      { status: 'resolved', payload: { label: 'only a label' } },
      { status: 'resolved' },
      { status: 'cancelled', payload: { optionsEmpty: 'yes' } },
      { status: 'cancelled', payload: { reason: 'none' } },
    ];
    for (const entry of invalid) {
      const bad = await stack.run(runBody({ threadId, resume: [{ interruptId: interrupt.id, ...entry }] }));
      expect(
        bad.sse.events.map((event) => event.type),
        JSON.stringify(entry),
      ).toEqual(['RUN_STARTED', 'RUN_ERROR']);
      expect(bad.sse.events[1], JSON.stringify(entry)).toMatchObject({ code: 'RESUME_PAYLOAD_INVALID' });
    }
    expect(answersSent(stack, threadId)).toEqual([]);
    expect(await pending(threadId)).toEqual([interrupt.id]);
    const good = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: 'vpc-123456' })] }));
    expect(lastEvent(good.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(await pending(threadId)).toEqual([]);
  });

  it('keeps the interrupt when the kernel refuses the answer (JSON-RPC error): A2A_UNAVAILABLE, then a retry succeeds', async () => {
    const { threadId, interrupt } = await selection(stack);
    // The kernel's own limit: strings at most 1,024 characters (the adapter checks the schema only).
    const refused = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: `vpc-${'x'.repeat(1100)}` })] }));
    expect(refused.sse.events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(refused.sse.events[1]).toMatchObject({ code: 'A2A_UNAVAILABLE', message: 'The local A2A execution service rejected the interrupt response.' });
    expect(await pending(threadId)).toEqual([interrupt.id]);
    stack.emulator.controls.rpcFaults.push({ method: 'SendStreamingMessage', kind: 'error', code: -32603, message: 'Injected refusal' });
    const injected = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: 'vpc-123456' })] }));
    expect(injected.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
    expect(await pending(threadId)).toEqual([interrupt.id]);
    const retry = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: 'vpc-123456' })] }));
    expect(lastEvent(retry.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(toolResults(retry.sse)).toHaveLength(1);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
  });
});

describe('the emulator reads a selection answer as the kernel does', () => {
  /** Posts a SendStreamingMessage straight to the emulator; answers the first JSON-RPC item. */
  async function send(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await fetch(stack.emulator.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message } }),
    });
    const raw = await response.text();
    const data = raw.startsWith('data:') ? raw.split('\n')[0]!.slice(5) : raw;
    return JSON.parse(data) as Record<string, unknown>;
  }

  it('refuses malformed answers with invalid-params, replays an identical answer and refuses a different one', async () => {
    const { threadId, interrupt } = await selection(stack);
    await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: 'vpc-123456', label: 'test-vpc' })] }));
    const accepted = answersSent(stack, threadId)[0] as SentMessage & Record<string, unknown>;
    const acceptedText = String(accepted.parts[0]?.text);
    const json = acceptedText.slice(RESOURCE_SELECTION_PREFIX.length);
    const withText = (value: string) => ({ ...accepted, messageId: uniqueId('m'), parts: [{ text: value }] });
    const invalid: Array<[string, string]> = [
      [`${RESOURCE_SELECTION_PREFIX} ${json}`, 'malformed JSON'],
      [`${acceptedText} `, 'malformed JSON'],
      [`${RESOURCE_SELECTION_PREFIX}${JSON.stringify({ ...JSON.parse(json), profileHash: 'x' })}`, 'payload fields'],
      [`${RESOURCE_SELECTION_PREFIX}${JSON.stringify({ ...JSON.parse(json), schemaVersion: true })}`, 'schemaVersion'],
      [`${RESOURCE_SELECTION_PREFIX}${JSON.stringify({ ...JSON.parse(json), contextId: 'agui-other' })}`, 'contextId'],
      [`${RESOURCE_SELECTION_PREFIX}${JSON.stringify({ ...JSON.parse(json), inputId: 'resource-XYZ' })}`, 'inputId'],
    ];
    for (const [value, reason] of invalid) {
      const answer = await send(withText(value));
      expect((answer['error'] as { code: number; message: string }) ?? answer, value).toMatchObject({
        code: -32602,
        message: expect.stringContaining('resource_selection_resume_invalid:'),
      });
      expect(String((answer['error'] as { message: string }).message), value).toContain(reason);
    }
    const replay = await send(withText(acceptedText));
    expect(replay['error']).toBeUndefined();
    expect(replay['result']).toMatchObject({ task: { id: accepted.taskId } });
    const conflicting = await send(withText(acceptedText.replace('"label":"test-vpc"', '"label":"other-vpc"')));
    expect((conflicting['error'] as { message: string }).message).toBe('resource_selection_resume_invalid: answer conflicts with prior answer');
  });
});

describe('across an adapter restart', () => {
  it('answers a selection raised before the restart: the selector survives in the thread document', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-selection-restart-'));
    const before = await startStack({ emulatorInstance: stack.emulator, stateDir });
    let threadId: string;
    let interrupt: InterruptShape;
    try {
      ({ threadId, interrupt } = await selection(before, 'resource-selection-derived'));
    } finally {
      await before.close();
    }
    const after = await startStack({ emulatorInstance: stack.emulator, stateDir });
    try {
      const bad = await after.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: '' })] }));
      expect(bad.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'RESUME_PAYLOAD_INVALID' });
      const second = await after.run(runBody({ threadId, resume: [resolved(interrupt.id, { value: 'redis://r.example:6379', label: 'primary' })] }));
      expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(String(answersSent(after, threadId)[0]?.parts[0]?.text)).toContain(
        '"selectorId":"redis.connection_url","value":"redis://r.example:6379","label":"primary","source":{',
      );
      expect(toolResults(second.sse).map((event) => event['content'])).toEqual(['primary']);
    } finally {
      await after.close();
    }
  });
});
