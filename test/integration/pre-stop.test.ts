/**
 * FC's PreStop hook in-process (lib/http/pre-stop-route.ts, docs/architecture.md §6): GET /pre-stop
 * with FC's marker drains the instance through the same graceful shutdown as SIGTERM — a run that
 * ends within the drain deadline is waited for, not aborted — without counting the hook's own
 * request, and answers once done; the instance keeps listening, and a later SIGTERM exits at once.
 * Without the marker (every caller through the HTTP trigger) the path does not exist.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAdapter, type RunningEmulators, startAdapter } from '../../lib/adapters/start-adapter.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { freePort } from '../support/adapter-process.js';
import { runBody } from '../support/fixtures.js';
import { LiveSse } from '../support/live-sse.js';

const MARKER = { 'x-fc-control-path': '/pre-stop' };

let emulator: A2AEmulator;
let adapter: RunningAdapter<RunningEmulators> | undefined;
const logs: string[] = [];
const signals = new EventEmitter();
let exitCode: Promise<number>;

beforeAll(async () => {
  let exited!: (code: number) => void;
  exitCode = new Promise<number>((resolve) => (exited = resolve));
  adapter = await startAdapter({
    platform: 'local',
    env: {
      IAC_CODE_AGUI_PORT: String(await freePort()),
      IAC_CODE_AGUI_STATE_DIR: await mkdtemp(join(tmpdir(), 'agui-pre-stop-')),
      IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: '20000',
      IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '10000',
    },
    startEmulators: async () => {
      emulator = await startA2AEmulator({ silenceMs: 1_000 });
      return { a2aUrl: emulator.url, close: () => emulator.close() };
    },
    logSink: (line) => logs.push(line),
    signals,
    exit: exited,
  });
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
    expect(logs.some((line) => line.includes('pre-stop hook called'))).toBe(false);
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

    signals.emit('SIGTERM', 'SIGTERM');
    expect(await exitCode, logs.join('\n')).toBe(0);
    const shutdown = logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['message'] === 'shut down');
    expect(shutdown).toMatchObject({ drained: true, aborted: 0, abandoned: 0 });
  });
});
