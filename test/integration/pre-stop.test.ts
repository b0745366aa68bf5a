/**
 * FC's PreStop hook, GET /pre-stop (docs/protocol.md §1.1, docs/architecture.md §6.6), through the
 * real start-up path: it exists only inside Function Compute (FC_SERVER_PORT set) and only for FC's
 * marked call; an unmarked call there is logged with its header names so a deployment shows what FC
 * sends; under `npm start` (no FC_SERVER_PORT) the path does not exist at all, marker or not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAdapter, RunningEmulators } from '../../lib/adapters/start-adapter.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { freePort } from '../support/adapter-process.js';
import { runBody } from '../support/fixtures.js';
import { type InProcessAdapter, startInProcessAdapter } from '../support/in-process-adapter.js';
import { LiveSse } from '../support/live-sse.js';

const MARKER = { 'x-fc-control-path': '/pre-stop' };

let emulator: A2AEmulator;
let started: InProcessAdapter<RunningEmulators>;
let adapter: RunningAdapter<RunningEmulators> | undefined;

function withEmulator(onStarted: (started: A2AEmulator) => void) {
  return async () => {
    const kernel = await startA2AEmulator({ silenceMs: 1_000 });
    onStarted(kernel);
    return { a2aUrl: kernel.url, close: () => kernel.close() };
  };
}

beforeAll(async () => {
  // Inside FC: FC_SERVER_PORT is set (the adapter binds 0.0.0.0 on it, docs/protocol.md §9.3).
  const env = { FC_SERVER_PORT: String(await freePort()), IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: '20000', IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '10000' };
  started = await startInProcessAdapter(
    env,
    withEmulator((kernel) => (emulator = kernel)),
  );
  adapter = started.adapter;
});

afterAll(async () => {
  await adapter?.server.close();
  await emulator?.close();
});

/** The adapter listens on 0.0.0.0 inside FC; loopback reaches it. */
const baseUrl = (running: RunningAdapter<RunningEmulators> | undefined) => `http://127.0.0.1:${new URL(running?.server.url ?? '').port}`;
const preStop = (headers: Record<string, string> = MARKER, method = 'GET') => fetch(`${baseUrl(adapter)}/pre-stop`, { method, headers });
const jsonLines = (logs: string[]) => logs.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('GET /pre-stop inside Function Compute', () => {
  it('does not exist without FC’s marker, nor with another control path', async () => {
    expect((await preStop({})).status).toBe(404);
    expect((await preStop({ 'x-fc-control-path': '/http-invoke' })).status).toBe(404);
    expect((await preStop({ 'x-fc-control-path': '/pre-stop/' })).status).toBe(404);
    expect(started.logs.some((line) => line.includes('pre-stop hook called'))).toBe(false);
  });

  it('logs an unmarked GET /pre-stop at warn with the names of the headers it carried, never their values', async () => {
    const before = started.logs.length;
    const response = await preStop({ 'x-fc-request-id': 'scale-in-1', 'x-probe-header': 'secret-looking-value-91c2' });
    expect(response.status).toBe(404);
    const warned = jsonLines(started.logs.slice(before)).filter((line) => line['level'] === 'warn' && String(line['message']).includes('/pre-stop'));
    expect(warned).toHaveLength(1);
    expect(warned[0]?.['headerNames']).toEqual(expect.arrayContaining(['x-fc-request-id', 'x-probe-header']));
    expect(started.logs.slice(before).join('\n')).not.toContain('secret-looking-value-91c2');
    // Another method, or the marked call, is not this warning.
    await preStop({}, 'POST');
    expect(jsonLines(started.logs.slice(before)).filter((line) => line['level'] === 'warn')).toHaveLength(1);
  });

  it('is a GET: FC’s call with another method is 405', async () => {
    const wrong = await preStop(MARKER, 'POST');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('waits for a run that finishes within the drain deadline (not counting its own request), answers 200, keeps listening; SIGTERM then exits 0 at once', async () => {
    const response = await fetch(`${baseUrl(adapter)}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody({ text: 'hello' })) });
    const live = new LiveSse(response);
    await live.until((event) => event.type === 'RUN_STARTED');

    const [first, repeated] = await Promise.all([preStop(), preStop()]);
    const events = await live.rest();

    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ status: 'drained', drained: true, aborted: 0, abandoned: 0 });
    // A repeated call answers with the same drain.
    expect(await repeated.json()).toEqual({ status: 'drained', drained: true, aborted: 0, abandoned: 0 });
    expect(emulator.callsOf('CancelTask')).toHaveLength(0);
    expect((await fetch(`${baseUrl(adapter)}/health`)).status).toBe(200);

    started.signals.emit('SIGTERM', 'SIGTERM');
    expect(await started.exitCode, started.logs.join('\n')).toBe(0);
    const shutdown = started.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['message'] === 'shut down');
    expect(shutdown).toMatchObject({ drained: true, aborted: 0, abandoned: 0 });
  });
});

describe('GET /pre-stop under npm start (no FC_SERVER_PORT)', () => {
  it('does not exist, even with FC’s marker: a live run goes on undrained, nothing is logged as a hook call', async () => {
    let kernel: A2AEmulator | undefined;
    const local = await startInProcessAdapter(
      {},
      withEmulator((started) => (kernel = started)),
    );
    try {
      const url = local.adapter?.server.url as string;
      const reader = new AbortController();
      const body = JSON.stringify(runBody({ text: 'long' }));
      const response = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: reader.signal });
      const live = new LiveSse(response);
      await live.until((event) => event.type === 'TEXT_MESSAGE_CONTENT');

      const hook = await fetch(`${url}/pre-stop`, { headers: MARKER });
      expect(hook.status).toBe(404);
      expect(await hook.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
      expect(local.logs.some((line) => line.includes('pre-stop'))).toBe(false);
      expect(kernel?.callsOf('CancelTask')).toHaveLength(0);
      expect(local.adapter?.server.inFlight.size).toBe(1);
      reader.abort();
    } finally {
      await local.adapter?.server.close();
      await kernel?.close();
    }
  });
});
