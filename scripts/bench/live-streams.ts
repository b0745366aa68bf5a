/**
 * Many concurrent live streams on one instance (docs/architecture.md §6.6: FC sends an instance many
 * requests at once). 1,000 runs of the emulator's `silence` scenario are opened on the built bundle,
 * run as FC runs it (Node 22, scripts/fc/fc-local-process.ts); once every stream has shown its first
 * text and fallen quiet, the function's resident memory is read and compared with what it was before.
 * Baseline: a bare `node:http` server holding as many idle SSE responses, spawned the same way —
 * what an idle HTTP response costs Node itself. Then every stream is read to its end and checked:
 * its whole text, and exactly one terminal event, RUN_FINISHED — no event lost.
 *
 * RSS is read from /proc after a full garbage collection, which a preload (`--import`, through
 * NODE_OPTIONS, never part of the bundle) runs on SIGUSR2.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { A2AEmulator } from '../../lib/emulators/a2a/server.js';
import { startFcLocal } from '../fc/fc-local-process.js';
import type { FcRuntime } from '../fc/render-s-yaml.js';
import { turnBody } from './local-stack.js';
import { type Comparison, compare } from './measure.js';

export const LIVE_STREAMS = 1_000;
/** How long each stream stays quiet: long enough to open all of them and measure. */
const SILENCE_MS = 25_000;

/** /proc counts in KiB; the targets are in KB (1,000 bytes). */
const toKB = (kib: number): number => (kib * 1024) / 1000;

/** Resident set size of a process, in KiB (Linux). */
function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}

/** A full GC in the child (the preload's SIGUSR2 handler), then its RSS. */
async function settledRss(child: ChildProcess): Promise<number> {
  for (let i = 0; i < 2; i += 1) {
    child.kill('SIGUSR2');
    await sleep(300);
  }
  return rssKiB(child.pid as number);
}

async function gcPreload(dir: string): Promise<string> {
  const path = join(dir, 'gc-on-signal.mjs');
  await writeFile(path, "process.on('SIGUSR2', () => globalThis.gc?.());\n");
  return path;
}

interface OpenStream {
  text: string;
  terminal: string[];
  firstText: Promise<void>;
  done: Promise<void>;
}

/** Opens one SSE stream and collects its text and terminal events as they arrive. */
function openStream(url: string, body: unknown): OpenStream {
  let sawText: () => void = () => undefined;
  const stream: OpenStream = { text: '', terminal: [], firstText: new Promise((resolve) => (sawText = resolve)), done: Promise.resolve() };
  stream.done = (async () => {
    const response = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== 200 || !response.body) throw new Error(`stream refused: HTTP ${response.status} ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const record = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        // A record is its id line (docs/protocol.md §4.12), then its data line; a heartbeat is a comment.
        const data = record.split('\n').find((line) => line.startsWith('data: '));
        if (data === undefined) continue;
        const event = JSON.parse(data.slice(6)) as { type: string; delta?: string };
        if (event.type === 'TEXT_MESSAGE_CONTENT') {
          stream.text += event.delta ?? '';
          sawText();
        }
        if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') stream.terminal.push(event.type);
      }
    }
  })();
  // A stream that ends or fails without text counts as lost below; it must not keep the bench waiting.
  stream.done.then(sawText, sawText);
  return stream;
}

/** A bare node:http server that answers every request with an SSE response it keeps open. */
const BARE_SSE_SERVER = `
const held = [];
require('node:http').createServer((q, s) => {
  s.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  s.write('data: {"type":"RUN_STARTED"}\\n\\n');
  held.push(s);
  if (q.url === '/release') { for (const r of held) r.end(); held.length = 0; }
}).listen(Number(process.env.PORT), '127.0.0.1');`;

async function bareStreamsRss(program: string, preload: string, port: number): Promise<number> {
  const child = spawn(program, ['-e', BARE_SSE_SERVER], {
    env: { PATH: process.env['PATH'], PORT: String(port), NODE_OPTIONS: `--expose-gc --import=${preload}` },
    stdio: 'ignore',
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries += 1) {
      const ok = await fetch(`${url}/ping`).then(
        async (response) => {
          await response.body?.cancel();
          return true;
        },
        () => false,
      );
      if (ok) break;
      if (tries > 500) throw new Error('the bare server did not start');
      await sleep(10);
    }
    const before = await settledRss(child);
    const controllers = Array.from({ length: LIVE_STREAMS }, () => new AbortController());
    await Promise.all(controllers.map((controller) => fetch(`${url}/`, { signal: controller.signal }).then((response) => response.body?.getReader().read())));
    const during = await settledRss(child);
    for (const controller of controllers) controller.abort();
    return (during - before) / LIVE_STREAMS;
  } finally {
    child.kill('SIGKILL');
  }
}

export interface LiveStreamFigures {
  rss: Comparison;
  streams: number;
  lost: number;
}

export async function benchLiveStreams(options: {
  runtime: FcRuntime;
  emulator: A2AEmulator;
  a2aToken: string;
  port: number;
  barePort: number;
  program: string;
}): Promise<LiveStreamFigures> {
  const { runtime, emulator, a2aToken } = options;
  const scratch = await mkdtemp(join(tmpdir(), 'agui-bench-streams-'));
  const preload = await gcPreload(scratch);
  const previousSilence = emulator.controls.silenceMs;
  emulator.controls.silenceMs = SILENCE_MS;
  const fn = await startFcLocal({
    runtime,
    port: options.port,
    a2aUrl: emulator.url,
    a2aToken,
    stateDir: join(scratch, 'state'),
    // Anonymous, as FC's entry allows only when told (the streams carry no token).
    env: { NODE_OPTIONS: `--expose-gc --import=${preload}`, IAC_CODE_AGUI_LOG_LEVEL: 'warn', IAC_CODE_AGUI_ALLOW_ANONYMOUS: '1' },
  });
  try {
    // One whole turn first: the code every stream runs is loaded before the first reading.
    const warm = openStream(fn.url, turnBody('hello'));
    await warm.done;
    const before = await settledRss(fn.child);
    const streams = Array.from({ length: LIVE_STREAMS }, (_, index) => openStream(fn.url, turnBody('silence', `bench-live-${process.pid}-${index}`)));
    await Promise.all(streams.map((stream) => stream.firstText));
    await sleep(500);
    const during = await settledRss(fn.child);
    await Promise.allSettled(streams.map((stream) => stream.done));
    const expected = 'Thinking quietly… done.';
    let lost = 0;
    for (const stream of streams) {
      const failed = await stream.done.then(
        () => false,
        () => true,
      );
      if (failed || stream.text !== expected || stream.terminal.join() !== 'RUN_FINISHED') lost += 1;
    }
    const bare = await bareStreamsRss(options.program, preload, options.barePort);
    return {
      rss: compare(
        `RSS per idle live stream (${LIVE_STREAMS.toLocaleString('en')} at once)`,
        'KB',
        toKB((during - before) / LIVE_STREAMS),
        toKB(bare),
        `FC bundle on Node 22, after a full GC; ${lost} of ${LIVE_STREAMS} streams lost an event; baseline: a bare node:http server holding as many idle SSE responses`,
      ),
      streams: LIVE_STREAMS,
      lost,
    };
  } finally {
    emulator.controls.silenceMs = previousSilence;
    await fn.stop('SIGKILL');
    await rm(scratch, { recursive: true, force: true });
  }
}
