/**
 * `npm run smoke -- <url>`: checks a deployed (or local) adapter end to end — GET /health, then one
 * normal turn, printing every AG-UI event as it arrives (docs/protocol.md §1, §4). Sends
 * `Authorization: Bearer $IAC_CODE_AGUI_AUTH_TOKEN` when that variable is set; never prints it.
 * Exit code 0 only when /health answers ok and the turn ends with RUN_FINISHED.
 *
 *   npm run smoke -- https://<trigger-url> [--message "hello"] [--cwd /workspace/smoke]
 *
 * Also a small library of AG-UI client helpers for scripts/ros-example.ts, and the smoke turn
 * itself (`runSmoke`) for scripts/verify.ts.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authTokenFrom } from '../lib/adapters/config.js';
import { errorSummary } from '../lib/core/error-fields.js';
import { sseBlockData } from './support/sse-events.js';

export type AguiEvent = Record<string, unknown> & { type: string };

export function authHeaders(token = authTokenFrom(process.env)?.reveal()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export interface TurnOptions {
  threadId: string;
  runId?: string;
  rosInvocationId: string;
  message: string;
  cwd: string;
}

/** A RunAgentInput for one normal turn (docs/protocol.md §3.1). */
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

export function postRun(baseUrl: string, body: unknown, signal?: AbortSignal, token?: string): Promise<Response> {
  return fetch(new URL('/', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders(token) },
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
    const data = sseBlockData(block);
    if (data === undefined) return;
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

export interface SmokeOptions {
  /** Bearer token for POST /; default $IAC_CODE_AGUI_AUTH_TOKEN. Never printed. */
  token?: string;
  message?: string;
  cwd?: string;
}

/**
 * The smoke turn (docs/protocol.md §1, §4): GET /health must answer `status: ok`, then one normal turn must end
 * with RUN_FINISHED. Prints each step through `out`; true when both held. Shared by `npm run
 * smoke` and `npm run verify` (scripts/verify.ts), which runs it against the trigger URL it found.
 */
export async function runSmoke(url: string, options: SmokeOptions, out: (line: string) => void): Promise<boolean> {
  const health = await fetch(new URL('/health', url));
  const healthBody = await health.text();
  out(`GET /health -> ${health.status} ${healthBody}`);
  let healthy = false;
  try {
    healthy = health.status === 200 && (JSON.parse(healthBody) as { status?: string }).status === 'ok';
  } catch {
    healthy = false;
  }
  if (!healthy) {
    out('smoke: FAILED (/health is not ok)');
    return false;
  }

  const body = runAgentInput({
    threadId: `smoke-${randomUUID()}`,
    rosInvocationId: `smoke-${randomUUID()}`,
    message: options.message ?? 'hello from the smoke check',
    cwd: options.cwd ?? '/workspace/smoke',
  });
  const response = await postRun(url, body, undefined, options.token);
  out(`POST / -> ${response.status} ${response.headers.get('content-type') ?? ''}`);
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    out(await response.text());
    out('smoke: FAILED (no event stream)');
    return false;
  }
  const events = await readEvents(response, (event) => out(`  ${describeEvent(event)}`));
  const terminal = events.at(-1);
  out(terminal?.type === 'RUN_FINISHED' ? 'smoke: ok' : `smoke: FAILED (${terminal ? describeEvent(terminal) : 'no terminal event'})`);
  return terminal?.type === 'RUN_FINISHED';
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const url = args.find((arg) => /^https?:\/\//.test(arg));
  if (!url) {
    process.stderr.write('usage: npm run smoke -- <adapter url> [--message TEXT] [--cwd /absolute/path]\n');
    return 2;
  }
  const ok = await runSmoke(url, { message: option(args, '--message', 'hello from the smoke check'), cwd: option(args, '--cwd', '/workspace/smoke') }, (line) =>
    process.stdout.write(`${line}\n`),
  );
  return ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`smoke: FAILED (${errorSummary(error)})\n`);
      process.exit(1);
    },
  );
}
