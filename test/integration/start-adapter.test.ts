import { describe, expect, it } from 'vitest';
import type { LocalEmulatorPlan } from '../../lib/adapters/config.js';
import { type RunningEmulators, startAdapter } from '../../lib/adapters/start-adapter.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { freePort } from '../support/adapter-process.js';
import { runBody } from '../support/fixtures.js';
import { startInProcessAdapter } from '../support/in-process-adapter.js';
import { LiveSse } from '../support/live-sse.js';
import { connectionRefused } from '../support/raw-http.js';

/** Starts the A2A emulator when the plan asks for it, and records how many CancelTask calls it had when it was closed. */
function recordingEmulators() {
  const record: { plan?: LocalEmulatorPlan; emulator?: A2AEmulator; cancelsWhenClosed?: number } = {};
  const start = async (plan: LocalEmulatorPlan): Promise<RunningEmulators> => {
    record.plan = plan;
    const emulator = plan.a2a ? await startA2AEmulator({ token: plan.a2a.token?.reveal() }) : undefined;
    record.emulator = emulator;
    return {
      a2aUrl: emulator?.url,
      close: async () => {
        record.cancelsWhenClosed = emulator?.callsOf('CancelTask').length;
        await emulator?.close();
      },
    };
  };
  return { record, start };
}

describe('startAdapter', () => {
  it('locally: starts the emulator the configuration calls for; on SIGTERM drains, cancels the live run, then closes the emulator, then exits 0', async () => {
    const { record, start } = recordingEmulators();
    const { adapter, logs, signals, exitCode } = await startInProcessAdapter(
      // No detach grace: a stopping instance cancels its runs, as the seed's rule has it (docs/protocol.md §6.8).
      { IAC_CODE_AGUI_A2A_TOKEN: 'kernel-token', IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: '50', IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '15000', IAC_CODE_AGUI_DETACH_GRACE_MS: '0' },
      start,
    );
    expect(adapter).toBeDefined();
    expect(record.plan?.a2a?.token?.reveal()).toBe('kernel-token');
    expect(adapter?.config.a2aUrl).toBe(record.emulator?.url);

    const response = await fetch(`${adapter?.server.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody({ text: 'long' })) });
    const live = new LiveSse(response);
    await live.until((event) => event.type === 'TEXT_MESSAGE_CONTENT');
    const rest = live.rest();
    signals.emit('SIGTERM', 'SIGTERM');

    expect(await exitCode, logs.join('\n')).toBe(0);
    expect((await rest).at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect(record.cancelsWhenClosed).toBe(1);
    expect(await connectionRefused(record.emulator?.url as string)).toBe(true);
    expect(await connectionRefused(adapter?.server.url as string)).toBe(true);
  });

  it('locally: a configuration error closes the emulators already started and prints one line naming the variable', async () => {
    const { record, start } = recordingEmulators();
    const errors: string[] = [];
    const exits: number[] = [];
    const adapter = await startAdapter({
      platform: 'local',
      env: { IAC_CODE_AGUI_LEASE_TTL_MS: 'soon' },
      startEmulators: start,
      errorSink: (line) => errors.push(line),
      exit: (code) => exits.push(code),
    });
    expect(adapter).toBeUndefined();
    expect(exits).toEqual([1]);
    expect(errors).toEqual(['configuration error: IAC_CODE_AGUI_LEASE_TTL_MS must be a positive integer, got "soon"']);
    expect(record.cancelsWhenClosed).toBe(0);
    expect(await connectionRefused(record.emulator?.url as string)).toBe(true);
  });

  it('in Function Compute: a missing kernel URL is one JSON error line with the instance fields', async () => {
    const errors: string[] = [];
    const exits: number[] = [];
    await startAdapter({
      platform: 'function-compute',
      env: { FC_SERVER_PORT: String(await freePort()), FC_FUNCTION_NAME: 'agui', FC_INSTANCE_ID: 'instance-7' },
      errorSink: (line) => errors.push(line),
      exit: (code) => exits.push(code),
    });
    expect(exits).toEqual([1]);
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0] as string)).toMatchObject({
      level: 'error',
      function: 'agui',
      instanceId: 'instance-7',
      message: expect.stringMatching(/^configuration error: IAC_CODE_AGUI_A2A_URL is required in Function Compute/),
    });
  });

  it('in Function Compute: no bearer token is one JSON error line naming IAC_CODE_AGUI_AUTH_TOKEN (the trigger is anonymous)', async () => {
    const errors: string[] = [];
    const exits: number[] = [];
    const adapter = await startAdapter({
      platform: 'function-compute',
      env: { FC_SERVER_PORT: String(await freePort()), IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.com', FC_FUNCTION_NAME: 'agui' },
      errorSink: (line) => errors.push(line),
      exit: (code) => exits.push(code),
    });
    expect(adapter).toBeUndefined();
    expect(exits).toEqual([1]);
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0] as string)).toMatchObject({
      level: 'error',
      function: 'agui',
      message:
        'configuration error: IAC_CODE_AGUI_AUTH_TOKEN (or IAC_CODE_AGUI_OIDC_ISSUER) is required in Function Compute (its HTTP trigger is anonymous); set IAC_CODE_AGUI_ALLOW_ANONYMOUS=1 to run without one',
    });
  });
});
