/** Streams as the soak drives them: one run (and the resumes its interrupts call for), read to its end. */
import { once } from 'node:events';
import { connect } from 'node:net';
import { DELTA_OWNERS } from '../../lib/core/journal/event-log.js';
import { parseSseEvents } from '../support/sse-events.js';

let counter = 0;

export function runInput(text: string, threadId: string, resume?: unknown[]): Record<string, unknown> {
  counter += 1;
  const body: Record<string, unknown> = {
    threadId,
    runId: `soak-run-${process.pid}-${counter}`,
    state: {},
    messages: [{ id: `soak-message-${counter}`, role: 'user', content: text }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'soak', cwd: '/workspace/soak' } },
  };
  if (resume) body['resume'] = resume;
  return body;
}

export interface StreamOutcome {
  status: number;
  /**
   * Event types in order, a run of consecutive deltas of one message or tool call counted once:
   * how many events such deltas arrive in depends on timing (docs/protocol.md §4.1).
   */
  types: string[];
  /** Characters of every delta together: what the merged deltas must still add up to. */
  deltaChars: number;
  /** The terminal event (RUN_FINISHED or RUN_ERROR), when there was one. */
  terminal: Record<string, unknown> | undefined;
}

export async function postRun(url: string, body: unknown, signal?: AbortSignal): Promise<{ outcome: StreamOutcome; events: Array<Record<string, unknown> & { type: string }> }> {
  const response = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body), signal });
  const raw = await response.text();
  const events = response.status === 200 ? parseSseEvents(raw) : [];
  const last = events.at(-1);
  const terminal = last && (last.type === 'RUN_FINISHED' || last.type === 'RUN_ERROR') ? last : undefined;
  return { outcome: { status: response.status, ...typesOf(events), terminal }, events };
}

function typesOf(events: Array<Record<string, unknown> & { type: string }>): Pick<StreamOutcome, 'types' | 'deltaChars'> {
  const types: string[] = [];
  let deltaChars = 0;
  let lastDelta: string | undefined;
  for (const event of events) {
    const owner = DELTA_OWNERS[event.type];
    const delta = owner === undefined ? undefined : `${event.type} ${String(event[owner])}`;
    if (delta === undefined || delta !== lastDelta) types.push(event.type);
    if (delta !== undefined) deltaChars += String(event['delta']).length;
    lastDelta = delta;
  }
  return { types, deltaChars };
}

/** One scenario turn: the run, then a resume answering every interrupt with allow_once, up to three times. */
export async function scenarioTurn(url: string, scenario: string, threadId: string): Promise<StreamOutcome[]> {
  const outcomes: StreamOutcome[] = [];
  let result = await postRun(url, runInput(scenario, threadId));
  outcomes.push(result.outcome);
  for (let round = 0; round < 3; round += 1) {
    const terminal = result.outcome.terminal as { type?: string; outcome?: { type?: string; interrupts?: Array<{ id: string }> } } | undefined;
    if (terminal?.type !== 'RUN_FINISHED' || terminal.outcome?.type !== 'interrupt') break;
    const resume = (terminal.outcome.interrupts ?? []).map((interrupt) => ({ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'allow_once' } }));
    result = await postRun(url, runInput('', threadId, resume));
    outcomes.push(result.outcome);
  }
  return outcomes;
}

/** Counts of each event type and the deltas' characters: what "the expected events" of a scenario are compared by. */
export function typeCounts(outcome: Pick<StreamOutcome, 'types' | 'deltaChars'>): string {
  const counts = new Map<string, number>();
  for (const type of outcome.types) counts.set(type, (counts.get(type) ?? 0) + 1);
  const byType = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([type, count]) => `${type}×${count}`);
  return [...byType, `delta characters×${outcome.deltaChars}`].join(' ');
}

/**
 * A body that stalls: headers and a few bytes of a longer body, then nothing. Resolves with the
 * status the adapter answered (0 if none) once the adapter closed the socket.
 */
export async function stalledBody(url: string): Promise<{ status: number; closed: boolean }> {
  const { hostname, port, host } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(`POST / HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"threadId":`);
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  await once(socket, 'close');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0), closed: true };
}
