/**
 * `npm run smoke -- <url>`: checks a deployed (or local) adapter end to end — GET /health, then one
 * normal turn, printing every AG-UI event as it arrives (SPEC §2, §4). Sends
 * `Authorization: Bearer $IAC_CODE_AGUI_AUTH_TOKEN` when that variable is set; never prints it.
 * Exit code 0 only when /health answers ok and the turn ends with RUN_FINISHED.
 *
 *   npm run smoke -- https://<trigger-url> [--message "hello"] [--cwd /workspace/smoke]
 *
 * Also a small library of AG-UI client helpers for scripts/ros-example.ts.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authTokenFrom } from '../lib/adapters/config.js';

export type AguiEvent = Record<string, unknown> & { type: string };

export function authHeaders(): Record<string, string> {
  const token = authTokenFrom(process.env);
  return token ? { authorization: `Bearer ${token.reveal()}` } : {};
}

export interface TurnOptions {
  threadId: string;
  runId?: string;
  rosInvocationId: string;
  message: string;
  cwd: string;
}

/** A RunAgentInput for one normal turn (SPEC §3). */
export function runAgentInput(options: TurnOptions): Record<string, unknown> {
  return {
    threadId: options.threadId,
    runId: options.runId ?? `run-${randomUUID()}`,
    state: {},
    messages: [{ id: `message-${randomUUID()}`, role: 'user', content: options.message }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: options.rosInvocationId, cwd: options.cwd } },
  };
}

export function postRun(baseUrl: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(new URL('/', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders() },
    body: JSON.stringify(body),
    signal,
  });
}

/** Reads an SSE body, calling `onEvent` per `data:` record (comments such as heartbeats are skipped). */
export async function readEvents(response: Response, onEvent: (event: AguiEvent) => void): Promise<AguiEvent[]> {
  const events: AguiEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const flush = (block: string): void => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (!data) return;
    const event = JSON.parse(data) as AguiEvent;
    events.push(event);
    onEvent(event);
  };
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      flush(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
    }
  }
  flush(buffered);
  return events;
}

/** One line per event: its type, then the event without the noisy envelope fields. */
export function describeEvent(event: AguiEvent): string {
  const { type, timestamp: _timestamp, threadId: _threadId, runId: _runId, ...rest } = event;
  const detail = JSON.stringify(rest);
  return `${type}${detail === '{}' ? '' : ` ${detail.length > 300 ? `${detail.slice(0, 297)}...` : detail}`}`;
}

function option(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? (args[at + 1] as string) : fallback;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const url = args.find((arg) => /^https?:\/\//.test(arg));
  if (!url) {
    process.stderr.write('usage: npm run smoke -- <adapter url> [--message TEXT] [--cwd /absolute/path]\n');
    return 2;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);

  const health = await fetch(new URL('/health', url));
  const healthBody = await health.text();
  out(`GET /health -> ${health.status} ${healthBody}`);
  if (health.status !== 200 || (JSON.parse(healthBody) as { status?: string }).status !== 'ok') return 1;

  const body = runAgentInput({
    threadId: `smoke-${randomUUID()}`,
    rosInvocationId: `smoke-${randomUUID()}`,
    message: option(args, '--message', 'hello from the smoke check'),
    cwd: option(args, '--cwd', '/workspace/smoke'),
  });
  const response = await postRun(url, body);
  out(`POST / -> ${response.status} ${response.headers.get('content-type') ?? ''}`);
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    out(await response.text());
    return 1;
  }
  const events = await readEvents(response, (event) => out(`  ${describeEvent(event)}`));
  const terminal = events.at(-1);
  out(terminal?.type === 'RUN_FINISHED' ? 'smoke: ok' : `smoke: FAILED (${terminal ? describeEvent(terminal) : 'no terminal event'})`);
  return terminal?.type === 'RUN_FINISHED' ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`smoke: FAILED (${error instanceof Error ? error.message : String(error)})\n`);
      process.exit(1);
    },
  );
}
