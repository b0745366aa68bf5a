/**
 * One turn of the official @ag-ui/client HttpAgent (docs/architecture.md §9.4): a fresh runId and
 * a valid forwardedProps.iacCode unless `parameters` give their own. Its runAgent applies
 * verifyEvents and the client's schemas, so a turn that resolves is a stream the client accepted.
 */
import type { BaseEvent, HttpAgent, RunAgentResult } from '@ag-ui/client';
import { iacCode, uniqueId } from './fixtures.js';

export async function runTurn(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<{ events: BaseEvent[]; result: RunAgentResult }> {
  const events: BaseEvent[] = [];
  const result = await agent.runAgent({ runId: uniqueId('run'), forwardedProps: { iacCode: iacCode() }, ...parameters }, { onEvent: ({ event }) => void events.push(event) });
  return { events, result };
}

/** The events of one turn (runTurn). */
export async function turnEvents(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<BaseEvent[]> {
  return (await runTurn(agent, parameters)).events;
}
