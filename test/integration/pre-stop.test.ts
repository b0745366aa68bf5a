import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAdapter, RunningEmulators } from '../../lib/adapters/start-adapter.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { runBody } from '../support/fixtures.js';
import { type InProcessAdapter, startInProcessAdapter } from '../support/in-process-adapter.js';
import { LiveSse } from '../support/live-sse.js';

const MARKER = { 'x-fc-control-path': '/pre-stop' };

let emulator: A2AEmulator;
let started: InProcessAdapter<RunningEmulators>;
let adapter: RunningAdapter<RunningEmulators> | undefined;

beforeAll(async () => {
  started = await startInProcessAdapter({ IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: '20000', IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '10000' }, async () => {
    emulator = await startA2AEmulator({ silenceMs: 1_000 });
    return { a2aUrl: emulator.url, close: () => emulator.close() };
  });
  adapter = started.adapter;
});

afterAll(async () => {
  await adapter?.server.close();
  await emulator?.close();
});

const preStop = (headers: Record<string, string> = MARKER, method = 'GET') => fetch(`${adapter?.server.url}/pre-stop`, { method, headers });

describe('GET /pre-stop', () => {
  it('does not exist without FC’s marker, nor with another control path', async () => {
    expect((await preStop({})).status).toBe(404);
    expect((await preStop({ 'x-fc-control-path': '/http-invoke' })).status).toBe(404);
    expect((await preStop({ 'x-fc-control-path': '/pre-stop/' })).status).toBe(404);
    expect(started.logs.some((line) => line.includes('pre-stop hook called'))).toBe(false);
  });

  it('is a GET: FC’s call with another method is 405', async () => {
    const wrong = await preStop(MARKER, 'POST');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('waits for a run that finishes within the drain deadline (not counting its own request), answers 200, keeps listening; SIGTERM then exits 0 at once', async () => {
    const response = await fetch(`${adapter?.server.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody({ text: 'hello' })) });
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
    expect((await fetch(`${adapter?.server.url}/health`)).status).toBe(200);

    started.signals.emit('SIGTERM', 'SIGTERM');
    expect(await started.exitCode, started.logs.join('\n')).toBe(0);
    const shutdown = started.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['message'] === 'shut down');
    expect(shutdown).toMatchObject({ drained: true, aborted: 0, abandoned: 0 });
  });
});
