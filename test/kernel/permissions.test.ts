/**
 * Permission prompts of the real kernel (docs/architecture.md §9.7): bash and write_file stop for
 * permission, the run ends with the interrupt, a resume answers it, and the workspace shows whether
 * the tool really ran. Reattaching to the interrupted execution gives the same interrupt back.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BaseEvent, buildResumeArray, type HttpAgent } from '@ag-ui/client';
import { expect, it } from 'vitest';
import type { KernelWorkspace } from '../../scripts/real-kernel/kernel-pair.js';
import { SubscribeAgent } from '../support/subscribe-agent.js';
import { agentRun, describeWithKernel, iacCodeIn, sessionOfEvents, textOfEvents, useKernel, userTurn } from './support/kernel-suite.js';

/**
 * The words of the model's closing sentence the continuation showed: each at most once, in order,
 * the last one always. The kernel's SubscribeToTask taps the task's events before it reads its
 * snapshot (a2a-sdk 1.1.0), so the snapshot's latest delta may come again as the stream's first
 * text; everything up to the snapshot comes from the task's history (docs/protocol.md §5.6).
 */
function expectClosingSentence(text: string): void {
  const sentence = ['Done:', 'the', 'tool', 'answered.'];
  const words = text.split(' ').filter(Boolean);
  expect(words.at(-1)).toBe('answered.');
  expect(words.map((word) => sentence.indexOf(word))).toEqual(words.map((word) => sentence.indexOf(word)).toSorted((a, b) => a - b));
  expect(new Set(words).size).toBe(words.length);
  expect(words.every((word) => sentence.includes(word))).toBe(true);
}

function results(events: readonly BaseEvent[]): string[] {
  return events.filter((event) => event.type === 'TOOL_CALL_RESULT').map((event) => (event as { content?: string }).content ?? '');
}

async function answer(agent: HttpAgent, workspace: KernelWorkspace, decision: 'allow_once' | 'deny') {
  const [interrupt] = agent.pendingInterrupts;
  if (!interrupt) throw new Error('no pending interrupt');
  const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload: { decision } } });
  return agentRun(agent, { resume, forwardedProps: { iacCode: iacCodeIn(workspace) } });
}

describeWithKernel('permissions with the real kernel', () => {
  const kernel = useKernel('permissions');

  it.each([
    ['bash', 'allow_once', 'out.txt', 'hi\n', 'Exit code: 0'],
    ['bash', 'deny', 'out.txt', undefined, 'Permission denied.'],
    ['write', 'allow_once', 'notes.txt', 'hello\n', undefined],
    ['write', 'deny', 'notes.txt', undefined, 'Permission denied.'],
  ] as const)('%s, answered %s: the tool runs only when allowed', async (word, decision, file, content, result) => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    const asked = await userTurn(agent, workspace, `${word} it please`);
    expect(asked.error).toBeUndefined();
    expect(asked.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    expect(agent.pendingInterrupts).toHaveLength(1);
    expect(agent.pendingInterrupts[0]).toMatchObject({ reason: 'tool_call', toolCallId: 'call_fake_1' });
    // Nothing ran while the permission waited.
    expect(existsSync(join(workspace.outside, file))).toBe(false);

    const resumed = await answer(agent, workspace, decision);
    expect(resumed.error).toBeUndefined();
    expect(resumed.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
    if (content === undefined) expect(existsSync(join(workspace.outside, file))).toBe(false);
    else expect(await readFile(join(workspace.outside, file), 'utf8')).toBe(content);
    // A denied tool fails on the answer's own stream. An allowed tool's result comes after it, and
    // when the tool finishes before the adapter's subscription attached it is in no stream and, once
    // more status updates came, in no snapshot either (docs/protocol.md §5.6): at most that one.
    const shown = results(resumed.events);
    if (decision === 'deny') expect(shown).toEqual([result]);
    else expect(shown.length <= 1 && shown.every((content) => result === undefined || content === result)).toBe(true);
    expectClosingSentence(textOfEvents(resumed.events));
  });

  it('reattaches to the interrupted execution through subscribe and gets the same interrupt; the answer still works', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    const asked = await userTurn(agent, workspace, 'bash it please');
    const { executionId } = sessionOfEvents(asked.events);
    const [interrupt] = agent.pendingInterrupts;

    const observer = new SubscribeAgent(kernel.stack.url, executionId, agent.threadId, 'kernel-suite');
    // The observer names a run admitted on the thread (docs/protocol.md §6.14).
    const observed = await agentRun(observer, { runId: asked.runId });
    expect(observed.error).toBeUndefined();
    expect(observed.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts: [expect.objectContaining({ id: interrupt?.id })] } });

    const resumed = await answer(agent, workspace, 'allow_once');
    expect(resumed.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(await readFile(join(workspace.outside, 'out.txt'), 'utf8')).toBe('hi\n');
  });
});
