/**
 * What the event journal costs (docs/protocol.md §6.15; issue 19's budget):
 *
 * - the relay with the journal against the same relay on a store that keeps none, in the same run
 *   (alternating pairs, each after a collection): at most 3 % slower;
 * - OSS writes per second of a streaming run: a 30-second run streaming a delta every 100 ms through
 *   an adapter on the OSS driver against the OSS emulator, its journal's requests counted apart from
 *   the thread documents' (as `npm run bench:oss` does): at most one per second.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import type { ThreadStore } from '../../lib/core/ports.js';
import type { Scenario } from '../../lib/emulators/a2a/scenarios.js';
import { startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../../lib/emulators/oss/server.js';
import { type BenchStack, turnBody } from './local-stack.js';
import { type Comparison, compare, median, pairSpread } from './measure.js';
import { benchProvider, ossAdapter } from './oss-adapter.js';
import { readRelay, registerRelayScenarios } from './relay.js';

const STREAM_DELTAS = 300;
const STREAM_PACE_MS = 100;

/** The store without its journal: what the relay costs without one. */
export function withoutJournal(store: ThreadStore): ThreadStore {
  return { kind: store.kind, load: (threadId) => store.load(threadId), save: (threadId, document, expected) => store.save(threadId, document, expected) };
}

/** The relay through an adapter whose store journals, against one whose store does not, alternating. */
export async function benchJournalRelay(journaled: BenchStack, bare: BenchStack, runs = 11): Promise<Comparison> {
  registerRelayScenarios(journaled);
  registerRelayScenarios(bare);
  const withJournal: number[] = [];
  const without: number[] = [];
  await readRelay(journaled);
  await readRelay(bare);
  for (let run = 0; run < runs; run += 1) {
    withJournal.push(await readRelay(journaled));
    without.push(await readRelay(bare));
  }
  return compare(
    'relay with the event journal',
    'ms',
    median(withJournal),
    median(without),
    `median of ${runs}, each run after a collection, ${pairSpread(withJournal, without)}; baseline: the same relay on the same file store without its journal (docs/protocol.md §6.15)`,
  );
}

/** A run streaming one delta every 100 ms for 30 s. */
const steadyScenario: Scenario = async (script) => {
  script.task('SUBMITTED');
  for (let i = 0; i < STREAM_DELTAS; i += 1) {
    script.text(`delta ${i}. `);
    await sleep(STREAM_PACE_MS);
  }
  script.finish('INPUT_REQUIRED');
};

/** The journal's OSS writes per second of a streaming run. */
export async function benchJournalWrites(): Promise<Comparison> {
  const kernel = await startA2AEmulator();
  kernel.controls.scenarios.set('steady', steadyScenario);
  const credential = { accessKeyId: 'bench-ak', accessKeySecret: randomUUID() };
  const oss = await startOssEmulator({ credentials: [credential] });
  const writes = { journal: 0, threads: 0 };
  const counted = (objects: OssObjects): OssObjects => ({
    ...objects,
    create: (key, body) => {
      if (key.startsWith('agui/threads/')) writes.threads += 1;
      else writes.journal += 1;
      return objects.create(key, body);
    },
    read: (key) => objects.read(key),
    list: (prefix, options) => objects.list(prefix, options),
    remove: (key) => objects.remove(key),
    removeMany: (keys) => objects.removeMany(keys),
  });
  const provider = benchProvider(oss.endpoint, credential, counted);
  const server = await ossAdapter(provider, kernel.url);
  try {
    const started = performance.now();
    const response = await fetch(`${server.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(turnBody('steady')) });
    await response.text();
    const seconds = (performance.now() - started) / 1000;
    const perSecond = writes.journal / seconds;
    return compare(
      'journal writes per second of streaming',
      '/s',
      perSecond,
      1,
      `a ${seconds.toFixed(1)} s run streaming a delta every ${STREAM_PACE_MS} ms on the OSS driver: ${writes.journal} journal creates (${(perSecond * 60).toFixed(0)} a minute) beside the thread documents' ${writes.threads}; baseline: the budget, one a second`,
    );
  } finally {
    await server.close();
    await kernel.close();
    await oss.close();
  }
}
