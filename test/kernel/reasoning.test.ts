/**
 * Reasoning in front of the real kernel started with `--thinking-exposure raw-thinking`
 * (docs/architecture.md §9.7): the model's reasoning becomes REASONING_* events closed before the
 * answer; in this mode the kernel sends no tool signals, and the adapter shows none.
 */
import type { BaseEvent } from '@ag-ui/client';
import { expect, it } from 'vitest';
import { RAW_THINKING } from '../../scripts/real-kernel/flows.js';
import { describeWithKernel, textOfEvents, useKernel, userTurn } from './support/kernel-suite.js';

function reasoningOf(events: readonly BaseEvent[]): string {
  return events
    .filter((event) => event.type === 'REASONING_MESSAGE_CONTENT')
    .map((event) => (event as { delta?: string }).delta ?? '')
    .join('');
}

describeWithKernel('reasoning with the real kernel (raw thinking)', () => {
  const kernel = useKernel('reasoning', { args: RAW_THINKING });

  it('shows the reasoning, closed before the answer starts', async () => {
    const workspace = await kernel.workspace();
    const { events, error } = await userTurn(kernel.agent(), workspace, 'think about a plan');
    expect(error).toBeUndefined();
    expect(reasoningOf(events)).toBe('Thinking: the user wants a plan.');
    expect(textOfEvents(events)).toBe('Here is the plan. ');
    const types: string[] = events.map((event) => event.type);
    expect(types.indexOf('REASONING_END')).toBeGreaterThan(types.lastIndexOf('REASONING_MESSAGE_CONTENT'));
    expect(types.indexOf('REASONING_END')).toBeLessThan(types.indexOf('TEXT_MESSAGE_START'));
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('runs a tool the kernel does not report in this mode: the answer only, no tool events', async () => {
    const workspace = await kernel.workspace();
    const { events, error } = await userTurn(kernel.agent(), workspace, 'list the files');
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type.startsWith('TOOL_CALL'))).toEqual([]);
    expect(textOfEvents(events)).toBe('Let me check. Done: the tool answered. ');
  });
});
