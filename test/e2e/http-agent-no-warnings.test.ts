/**
 * The official @ag-ui/client 1.0 HttpAgent prints nothing on any scenario. Its enforce stage warns
 * "Removed unrecognised material" for every key @ag-ui/core 1.0 does not define, at any depth
 * (docs/protocol.md §4), so nothing printed through `console.warn` (or any other console method) —
 * on successes, failures, interrupts, resumes and pipelines alike — shows the adapter emits exactly
 * the 1.0 fields. ("console" here is Node's, not the web console at /console.)
 */
import { format } from 'node:util';
import { buildResumeArray, HttpAgent, type Interrupt } from '@ag-ui/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { iacCode, uniqueId } from '../support/fixtures.js';
import { type Stack, startStack } from '../support/stack.js';

type Answer = { status: 'resolved'; payload: unknown } | { status: 'cancelled' };

interface Scenario {
  /** The first word picks the emulator scenario (README "Emulator scenarios"). */
  text: string;
  iacCode?: Record<string, unknown>;
  /** One answer per resume run, given every pending interrupt. */
  answers?: Array<(interrupt: Interrupt) => Answer>;
  /** How each run ends: `RUN_FINISHED:<outcome>` or `RUN_ERROR:<code>`. */
  ends: string[];
}

const allowOnce = (): Answer => ({ status: 'resolved', payload: { decision: 'allow_once' } });
const cancel = (): Answer => ({ status: 'cancelled' });
const firstOption = (interrupt: Interrupt): Answer => {
  const options = (interrupt.metadata?.['standardOptions'] ?? []) as Array<{ id: string }>;
  return { status: 'resolved', payload: { selectedId: options[0]?.id } };
};

const SCENARIOS: Array<[string, Scenario]> = [
  ['hello', { text: 'hello there', ends: ['RUN_FINISHED:success'] }],
  ['tools', { text: 'tools please', ends: ['RUN_FINISHED:success'] }],
  ['thinking', { text: 'thinking please', ends: ['RUN_FINISHED:success'] }],
  ['artifact', { text: 'artifact please', ends: ['RUN_FINISHED:success'] }],
  ['complete', { text: 'complete please', ends: ['RUN_FINISHED:success'] }],
  ['retryable-error', { text: 'retryable-error please', ends: ['RUN_FINISHED:success'] }],
  ['fatal-error', { text: 'fatal-error please', ends: ['RUN_ERROR:A2A_EXECUTION_FAILED'] }],
  ['working-end', { text: 'working-end please', ends: ['RUN_ERROR:A2A_EXECUTION_FAILED'] }],
  ['permission, allowed', { text: 'permission please', answers: [allowOnce], ends: ['RUN_FINISHED:interrupt', 'RUN_FINISHED:success'] }],
  ['question, cancelled', { text: 'question please', answers: [cancel], ends: ['RUN_FINISHED:interrupt', 'RUN_ERROR:CANCELLED'] }],
  ['candidates, first option', { text: 'candidates please', answers: [firstOption], ends: ['RUN_FINISHED:interrupt', 'RUN_FINISHED:success'] }],
  ['pipeline with recovery, allowed', { text: 'pipeline', iacCode: { runMode: 'pipeline' }, answers: [allowOnce], ends: ['RUN_FINISHED:interrupt', 'RUN_FINISHED:success'] }],
];

let stack: Stack;
const printed: string[] = [];

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

beforeEach(() => {
  // The client stays silent when this is set; the test must see its warnings.
  vi.stubEnv('SUPPRESS_TRANSFORMATION_WARNINGS', undefined);
  printed.length = 0;
  for (const method of ['warn', 'error', 'log', 'info', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(`console.${method}: ${format(...args)}`));
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Runs one turn; a failed run is reported to the subscriber, not thrown, so each end is recorded. */
async function runTurn(agent: HttpAgent, scenario: Scenario, resume?: ReturnType<typeof buildResumeArray>): Promise<string> {
  let end = 'no terminal event';
  await agent.runAgent(
    { runId: uniqueId('run'), forwardedProps: { iacCode: iacCode(scenario.iacCode) }, ...(resume ? { resume } : {}) },
    {
      onRunFinishedEvent: ({ event }) => {
        end = `RUN_FINISHED:${event.outcome?.type ?? 'success'}`;
      },
      onRunErrorEvent: ({ event }) => {
        end = `RUN_ERROR:${event.code}`;
      },
    },
  );
  return end;
}

describe('HttpAgent (official AG-UI client) prints nothing', () => {
  it.each(SCENARIOS)('on the "%s" scenario', async (_name, scenario) => {
    // Arrange
    const agent = new HttpAgent({ url: `${stack.url}/`, threadId: uniqueId('thread') });
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: scenario.text });

    // Act
    const ends = [await runTurn(agent, scenario)];
    for (const answer of scenario.answers ?? []) {
      const responses = Object.fromEntries(agent.pendingInterrupts.map((interrupt) => [interrupt.id, answer(interrupt)]));
      ends.push(await runTurn(agent, scenario, buildResumeArray(agent.pendingInterrupts, responses)));
    }

    // Assert
    expect(ends).toEqual(scenario.ends);
    expect(printed).toEqual([]);
  });
});
