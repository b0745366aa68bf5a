/**
 * What one takeover costs (issue 26 "Cost"; docs/design/reattach.md "Cost"): two instances on the
 * OSS driver against the OSS emulator; instance A streams a long answer, its caller is cut, A stops
 * and hands the run over; a reader on B reattaches with its last id and B takes the run over.
 *
 * Reported as ratios against what there was to read, measured in the same run:
 * - journal bytes B read (GetObject bodies under agui/journal/) against the bytes A had journaled —
 *   1 means the journal is read once;
 * - task-history messages B asked GetTask for against what the same calls reading the whole history
 *   would have fetched — well under 1 means catch-up fetched only what it had not seen
 *   (lib/core/reattach/history-window.ts).
 * Both at two sizes of journal, so a cost that grows faster than the journal shows.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '../../lib/adapters/logger.js';
import { shutDown } from '../../lib/adapters/node-server/graceful-shutdown.js';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import type { Scenario } from '../../lib/emulators/a2a/scenarios.js';
import { startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../../lib/emulators/oss/server.js';
import { ASK_GRACE } from '../../test/support/fixtures.js';
import { subscribe } from '../../test/support/observe.js';
import { readRecords } from '../../test/support/sse-records.js';
import { turnBody } from './local-stack.js';
import { type Comparison, compare } from './measure.js';
import { benchProvider, ossAdapter } from './oss-adapter.js';

const DELTAS = 900;
const PACE_MS = 4;

/**
 * A long answer, one delta every few milliseconds: still streaming when A stops. `historyAt[c]` is
 * the task's history length once the emulator had seen `c` calls — what a whole read then returned.
 */
function longAnswer(callsSoFar: () => number, historyAt: number[]): Scenario {
  return async (script) => {
    script.task('SUBMITTED');
    for (let i = 0; i < DELTAS; i += 1) {
      script.text(`part ${i}. `);
      historyAt[callsSoFar()] = i + 2;
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
    script.finish('INPUT_REQUIRED');
  };
}

/** The history a whole read made as call `index` would have returned. */
function historyThen(historyAt: number[], index: number): number {
  for (let at = index; at >= 0; at -= 1) if (historyAt[at] !== undefined) return historyAt[at] as number;
  return 1;
}

interface Tally {
  journalWritten: number;
  journalRead: number;
  journalReads: number;
}

function tallied(tally: Tally): (objects: OssObjects) => OssObjects {
  return (objects) => ({
    ...objects,
    create: (key, body) => {
      if (key.startsWith('agui/journal/')) tally.journalWritten += Buffer.byteLength(body as string | Buffer);
      return objects.create(key, body);
    },
    read: async (key) => {
      const body = await objects.read(key);
      if (key.startsWith('agui/journal/')) {
        tally.journalReads += 1;
        tally.journalRead += body?.length ?? 0;
      }
      return body;
    },
    list: (prefix, options) => objects.list(prefix, options),
    remove: (key) => objects.remove(key),
    removeMany: (keys) => objects.removeMany(keys),
  });
}

interface TakeoverCost {
  journalBytes: number;
  bytesRead: number;
  reads: number;
  /** The messages whole reads at each of the same calls would have fetched (the cost before issue 26). */
  wholeReads: number;
  historyAsked: number;
  getTasks: number;
}

async function oneTakeover(cutAfter: number): Promise<TakeoverCost> {
  const kernel = await startA2AEmulator();
  const historyAt: number[] = [];
  kernel.controls.scenarios.set(
    'long-answer',
    longAnswer(() => kernel.calls.length, historyAt),
  );
  const credential = { accessKeyId: 'bench-ak', accessKeySecret: randomUUID() };
  const oss = await startOssEmulator({ credentials: [credential] });
  const tallyA: Tally = { journalWritten: 0, journalRead: 0, journalReads: 0 };
  const tallyB: Tally = { journalWritten: 0, journalRead: 0, journalReads: 0 };
  const a = await ossAdapter(benchProvider(oss.endpoint, credential, tallied(tallyA)), kernel.url, { detachGraceMs: 60_000 });
  const b = await ossAdapter(benchProvider(oss.endpoint, credential, tallied(tallyB)), kernel.url, { detachGraceMs: 60_000 });
  try {
    const body = turnBody('long-answer');
    // The owner's client asks for a grace, as the console does: its cut leaves the run detached for a takeover.
    const response = await fetch(`${a.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
      body: JSON.stringify(body),
    });
    const { records } = await readRecords(response, { cutAfter, controller: new AbortController() });
    const executionId = ((records.find((record) => record.event.type === 'CUSTOM')?.event['value'] ?? {}) as { executionId?: string }).executionId;
    if (!executionId) throw new Error('the run announced no execution id');
    await shutDown(a, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
    const journalBytes = tallyA.journalWritten;
    const before = kernel.calls.length;
    const identity = { threadId: body['threadId'], runId: body['runId'], rosInvocationId: 'bench' };
    const rest = await readRecords(await subscribe(b.url, executionId, identity, { 'last-event-id': records.at(-1)?.id ?? '' }));
    const last = rest.records.at(-1)?.event.type;
    if (last !== 'RUN_FINISHED') throw new Error(`the takeover ended with ${last ?? 'nothing'}`);
    // The user's message and one per delta (the emulator keeps history per delta, as iac-code does).
    let historyAsked = 0;
    let wholeReads = 0;
    let getTasks = 0;
    kernel.calls.forEach((call, index) => {
      if (index < before || call.method !== 'GetTask') return;
      const then = historyThen(historyAt, index);
      getTasks += 1;
      wholeReads += then;
      historyAsked += Math.min(then, (call.params as { historyLength?: number }).historyLength ?? then);
    });
    return { journalBytes, bytesRead: tallyB.journalRead, reads: tallyB.journalReads, wholeReads, historyAsked, getTasks };
  } finally {
    await b.close();
    await a.close().catch(() => undefined);
    await kernel.close();
    await oss.close();
  }
}

export async function benchTakeover(): Promise<Comparison[]> {
  const rows: Comparison[] = [];
  for (const cutAfter of [100, 600]) {
    const cost = await oneTakeover(cutAfter);
    rows.push(
      compare(
        `takeover: journal bytes read, cut after ${cutAfter} records`,
        'B',
        cost.bytesRead,
        cost.journalBytes,
        `${cost.reads} journal GetObject on the taking instance; baseline: the bytes the stopped instance had journaled (1 = read once)`,
      ),
      compare(
        `takeover: task history fetched, cut after ${cutAfter} records`,
        'msg',
        cost.historyAsked,
        cost.wholeReads,
        `${cost.getTasks} GetTask calls, the messages they asked for summed; baseline: the same calls each reading the whole history then (${DELTAS} deltas, one message each)`,
      ),
    );
  }
  return rows;
}
