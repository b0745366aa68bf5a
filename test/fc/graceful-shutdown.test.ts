/**
 * Graceful shutdown (lib/adapters/node-server/graceful-shutdown.ts) on a real loopback stack with the file
 * store: live runs may finish within the drain deadline; runs still live after it are aborted, so
 * the app's disconnect policy cancels their A2A task and releases their lease — and shutDown
 * returns only after that clean-up, so nothing is left to poll for.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/adapters/config.js';
import { createLogger } from '../../lib/adapters/logger.js';
import { exitOnSignals, RELAYED_REPEAT_MS, shutDown } from '../../lib/adapters/node-server/graceful-shutdown.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { connectionRefused } from '../support/raw-http.js';
import { parseSse } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
let lines: string[];

beforeEach(async () => {
  stack = await startStack({ store: 'file', emulator: { silenceMs: 600 } });
  lines = [];
});

afterEach(async () => {
  await stack.close();
});

const logger = () => createLogger((line) => lines.push(line));

/** Starts a run and reads its stream until `marker` appeared; returns the reader and the text so far. */
async function startRun(text: string, threadId: string, marker: string) {
  const response = await stack.post('/', runBody({ threadId, text }));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${marker}: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    let tail = seen;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return tail;
      tail += decoder.decode(value, { stream: true });
    }
  })();
  return { seen, rest };
}

async function storedThread(threadId: string): Promise<Record<string, unknown>> {
  const stored = await stack.store.load(threadId);
  return (stored?.document ?? {}) as Record<string, unknown>;
}

describe('graceful shutdown', () => {
  it('stops accepting connections but lets a live run finish within the drain deadline', async () => {
    const threadId = uniqueId('thread');
    const run = await startRun('silence', threadId, 'RUN_STARTED');
    const shutdown = shutDown(stack.server, { drainMs: 15_000, cleanupMs: 5_000 }, logger());
    expect(await connectionRefused(stack.url)).toBe(true);
    const report = await shutdown;
    expect(report).toEqual({ drained: true, aborted: 0, abandoned: 0 });
    const events = parseSse(await run.rest).events;
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect((await storedThread(threadId))['activeRun']).toBeNull();
    expect(stack.emulator.callsOf('CancelTask')).toEqual([]);
  });

  it('aborts runs still live at the drain deadline and returns only after they cancelled their task and released their lease', async () => {
    const threadId = uniqueId('thread');
    const run = await startRun('long', threadId, 'TEXT_MESSAGE_CONTENT');
    const taskId = /"taskId":"([^"]+)"/.exec(run.seen)?.[1];
    expect(taskId).toBeDefined();
    expect((await storedThread(threadId))['activeRun']).not.toBeNull();

    const report = await shutDown(stack.server, { drainMs: 50, cleanupMs: 10_000 }, logger());

    expect(report).toEqual({ drained: false, aborted: 1, abandoned: 0 });
    // No polling: the clean-up is already done when shutDown returns.
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    const document = await storedThread(threadId);
    expect(document['activeRun']).toBeNull();
    const execution = document['execution'] as { executionId: string; taskId: string | null };
    expect(Object.keys(document['terminalExecutions'] as object)).toContain(execution.executionId);
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(expect.arrayContaining(['shutting down', 'shut down']));
    // The client was still connected: it is told how its run ended.
    expect(parseSse(await run.rest).events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
  });

  it('reads its deadlines from the environment (through the configuration) and fails fast on a bad value', () => {
    expect(loadConfig({}).shutdown).toEqual({ drainMs: 20_000, cleanupMs: 10_000 });
    expect(loadConfig({ IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: '0', IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '2500' }).shutdown).toEqual({ drainMs: 0, cleanupMs: 2500 });
    expect(() => loadConfig({ IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: 'soon' })).toThrow(ConfigError);
    expect(() => loadConfig({ IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '-1' })).toThrow(/IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS/);
  });

  it('exits 0 once a shutdown on SIGTERM cleaned everything up', async () => {
    const signals = new EventEmitter();
    const code = await new Promise<number>((resolve) => {
      exitOnSignals(stack.server, { drainMs: 10_000, cleanupMs: 10_000 }, logger(), { signals, exit: resolve });
      signals.emit('SIGTERM', 'SIGTERM');
    });
    expect(code).toBe(0);
    expect(await connectionRefused(stack.url)).toBe(true);
  });

  it('exits at once with 1 on a second signal', async () => {
    const threadId = uniqueId('thread');
    const run = await startRun('long', threadId, 'TEXT_MESSAGE_CONTENT');
    const exits: number[] = [];
    let exited!: () => void;
    const done = new Promise<void>((resolve) => (exited = resolve));
    const signals = new EventEmitter();
    const remove = exitOnSignals(stack.server, { drainMs: 10_000, cleanupMs: 10_000 }, logger(), {
      signals,
      exit: (code) => {
        exits.push(code);
        exited();
      },
    });
    try {
      signals.emit('SIGTERM', 'SIGTERM');
      signals.emit('SIGINT', 'SIGINT');
      await done;
      expect(exits).toEqual([1]);
      // The first signal's shutdown still drains; the process would already be gone in real life.
      stack.server.inFlight.abortAll(new Error('test over'));
      await stack.server.inFlight.idle();
    } finally {
      remove();
    }
    await run.rest;
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`takes a ${signal} repeated at once for a relay (npm forwards what its process group already got): it still drains, then exits 0`, async () => {
      const run = await startRun('long', uniqueId('thread'), 'TEXT_MESSAGE_CONTENT');
      const signals = new EventEmitter();
      const code = await new Promise<number>((resolve) => {
        exitOnSignals(stack.server, { drainMs: 50, cleanupMs: 10_000 }, logger(), { signals, exit: resolve, now: () => 5_000 });
        signals.emit(signal, signal);
        signals.emit(signal, signal);
      });
      expect(code).toBe(0);
      expect(parseSse(await run.rest).events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
      expect(lines.map((line) => JSON.parse(line).message)).toContain('signal repeated by a parent process; still shutting down');
    });
  }

  /** Signals during a live run, each after the first `gapMs` later on the clock: the exit codes asked for at once. */
  async function exitsOnSignals(sent: readonly NodeJS.Signals[], gapMs: number): Promise<number[]> {
    const run = await startRun('long', uniqueId('thread'), 'TEXT_MESSAGE_CONTENT');
    let clock = 5_000;
    const exits: number[] = [];
    const signals = new EventEmitter();
    const remove = exitOnSignals(stack.server, { drainMs: 10_000, cleanupMs: 10_000 }, logger(), { signals, exit: (code) => exits.push(code), now: () => clock });
    try {
      for (const [index, signal] of sent.entries()) {
        if (index > 0) clock += gapMs;
        signals.emit(signal, signal);
      }
      return [...exits];
    } finally {
      stack.server.inFlight.abortAll(new Error('test over'));
      await stack.server.inFlight.idle();
      remove();
      await run.rest;
    }
  }

  // One shutdown per test: the first signal stops the stack from accepting connections.
  const cases: Array<{ title: string; sent: NodeJS.Signals[]; gapMs: number; exits: number[] }> = [
    { title: 'exits at once with 1 when a SIGINT comes again after the relay window', sent: ['SIGINT', 'SIGINT'], gapMs: RELAYED_REPEAT_MS, exits: [1] },
    { title: 'exits at once with 1 when a SIGTERM comes again after the relay window', sent: ['SIGTERM', 'SIGTERM'], gapMs: RELAYED_REPEAT_MS, exits: [1] },
    { title: 'keeps draining on a SIGTERM repeated at once (a group signal relayed by npm)', sent: ['SIGTERM', 'SIGTERM'], gapMs: 0, exits: [] },
    { title: 'exits at once with 1 on a third SIGTERM, however soon: only one repeat is a relay', sent: ['SIGTERM', 'SIGTERM', 'SIGTERM'], gapMs: 1, exits: [1] },
    { title: 'exits at once with 1 on a third SIGINT, however soon', sent: ['SIGINT', 'SIGINT', 'SIGINT'], gapMs: 1, exits: [1] },
    { title: 'exits at once with 1 on a different signal, however soon', sent: ['SIGTERM', 'SIGINT'], gapMs: 0, exits: [1] },
  ];
  for (const { title, sent, gapMs, exits } of cases) {
    it(title, async () => {
      expect(await exitsOnSignals(sent, gapMs)).toEqual(exits);
    });
  }

  it('runs afterShutdown (the local stack closes its emulators there) only after the aborted runs cancelled their task, then exits', async () => {
    const run = await startRun('long', uniqueId('thread'), 'TEXT_MESSAGE_CONTENT');
    const taskId = /"taskId":"([^"]+)"/.exec(run.seen)?.[1];
    const seenByAfterShutdown: string[] = [];
    const signals = new EventEmitter();
    const code = await new Promise<number>((resolve) => {
      exitOnSignals(stack.server, { drainMs: 50, cleanupMs: 10_000 }, logger(), {
        signals,
        exit: resolve,
        afterShutdown: async () => {
          seenByAfterShutdown.push(...stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id));
        },
      });
      signals.emit('SIGTERM', 'SIGTERM');
    });
    expect(code).toBe(0);
    expect(seenByAfterShutdown).toContain(taskId);
    await run.rest;
  });
});
