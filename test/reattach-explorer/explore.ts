/**
 * One seeded execution of the reattach explorer (issue 26; docs/protocol.md §6.15): a plan for the
 * kernel (explore-scenario.ts), the producer's fate — left alone, detached (its caller leaves and it
 * goes on), killed, frozen past its lease and thawed, handed over by a stopping instance, abandoned
 * until the sweeper ends it — journal faults, racing sweepers, and readers that cut the stream at
 * every kind of record and reattach with Last-Event-ID on a random instance, at once or later; an
 * interrupt → answer → resume cycle in one execution with a sweep from the future in between. Every
 * choice comes from the seed (mulberry32); what happens between them is real time on real sockets,
 * and every wait is for a condition, with a deadline.
 *
 * Returns what every reader received, segment by segment, for the oracle (oracle.ts).
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { JOURNAL_RETENTION_MS } from '../../lib/core/reattach/execution-logs.js';
import { type ExpectedTurn, type ExplorePlan, type ExploreStep, expectedTurns, exploreMessage } from '../../lib/emulators/a2a/explore-scenario.js';
import { ASK_GRACE, runBody } from '../support/fixtures.js';
import { resolved } from '../support/interrupts.js';
import { subscribe } from '../support/observe.js';
import { seededRandom } from '../support/oss-adversary.js';
import type { Instance, ReattachWorld } from '../support/reattach-world.js';
import type { SseRecordWithId } from '../support/sse-records.js';
import { CUT_KINDS, type Cut, isTerminal, readSegment, type Segment, type Wait, type Where } from './readers.js';

export type Fate = 'calm' | 'detach' | 'kill' | 'freeze' | 'handover' | 'abandon';

export interface ExplorerSettings {
  /** How likely a long answer past the journal's 16 MiB cap is (slow: the soak only). */
  long: number;
  history: 'perDelta' | 'growing' | 'mixed';
  journalFaults: boolean;
  /** Kill, freeze and hand over instances (else: calm, detach and abandon only). */
  instanceFaults: boolean;
  /** Readers besides the caller and the reference, at most. */
  subscribers: number;
  /** The producers' fates to pick from (default: every one the settings allow). */
  fates?: Fate[];
}

export type Role = 'caller' | 'subscriber' | 'reference' | 'forged';

export interface ReaderLog {
  name: string;
  role: Role;
  /** The run (index) it started in. */
  run: number;
  /** A forged id: what kind. */
  forged?: 'futureSeq' | 'futureEpoch' | 'epochZero';
  segments: Segment[];
  /** Why it stopped without a terminal event or a refusal: `silent` (reattached and got nothing more), `deadline`. */
  gaveUp?: 'silent' | 'deadline';
}

export interface RunRecord {
  runId: string;
  instance: string;
  /** World time the run's RUN_STARTED reached its caller; undefined if it never did. */
  startedAt: number | undefined;
  /** World time the explorer saw the run's lease released; undefined if never. */
  settledAt: number | undefined;
  /** The POST was refused before the stream. */
  refused?: { status: number; code: string | undefined };
}

export interface ExecutionOutcome {
  seed: number;
  fate: Fate;
  threadId: string;
  executionId: string | undefined;
  taskId: string | undefined;
  plan: ExplorePlan;
  expected: ExpectedTurn[];
  runs: RunRecord[];
  /** The uncut reader of each run, by run index. */
  references: Map<number, ReaderLog>;
  readers: ReaderLog[];
  secrets: string[];
  /** CancelTask was sent for the task (the sweeper ended it). */
  cancelled: boolean;
  /** The task's last state in the kernel. */
  taskState: string | undefined;
  /** Journal faults were injected for this execution. */
  journalFaults: boolean;
  /** Explorer's own notes (e.g. a run that never settled). */
  notes: string[];
  /** The raw journal, read at the end: the ids of RUN_STARTED events it still holds. */
  journalRunStarts: Set<string>;
  /** The raw journal, read at the end: the fork points its takeovers name. */
  forks: Fork[];
  /** Expiry sweeps from the future the explorer made: (world time, deleter clock). */
  futureSweeps: Array<{ at: number; clock: number }>;
}

interface ThreadView {
  activeRun: { runId: string; expiresAt: number; detachedUntil?: number } | null;
  execution: { executionId: string; taskId: string | null; journalEpoch?: number };
}

const SETTLE_MS = 60_000;
const READER_MS = 90_000;
const LONG_READER_MS = 240_000;
const MAX_ATTACHES = 12;

/** Picks from a list by the seeded random. */
function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function between(random: () => number, low: number, high: number): number {
  return Math.floor(low + random() * (high - low + 1));
}

/** `holdMs` > 0: the kernel pauses that long after the first steps (an abandoned run must outlast its grace, for the sweeper to end it). */
export function makePlan(random: () => number, settings: ExplorerSettings, holdMs = 0): ExplorePlan {
  const pace = between(random, 8, 30);
  const history = settings.history === 'mixed' ? (random() < 0.5 ? 'perDelta' : 'growing') : settings.history;
  const steps: ExploreStep[] = [];
  let word = 0;
  let tool = 0;
  const segment = (): void => {
    const roll = random();
    if (roll < 0.55) {
      const deltas = Array.from({ length: between(random, 3, 22) }, () => {
        word += 1;
        return `${pick(random, ['vpc', 'subnet', 'zone', 'cidr', 'stack', 'plan', 'tf'])}${word} `;
      });
      steps.push({ kind: 'text', deltas });
    } else if (roll < 0.7) steps.push({ kind: 'reasoning', parts: Array.from({ length: between(random, 1, 4) }, (_, index) => `thought ${word}.${index}. `) });
    else if (roll < 0.85) {
      tool += 1;
      steps.push({
        kind: 'tool',
        id: `toolu-x${tool}`,
        name: pick(random, ['read_file', 'lint_template', 'plan']),
        args: between(random, 0, 3),
        progress: random() < 0.5,
        outcome: random() < 0.8 ? 'completed' : 'failed',
      });
    } else if (roll < 0.9) steps.push({ kind: 'artifact', id: `artifact-x${word}` });
    else if (roll < 0.95) steps.push({ kind: 'usage' });
    else steps.push({ kind: 'pause', ms: between(random, 100, 500) });
  };
  const segments = between(random, 3, 7);
  for (let index = 0; index < segments; index += 1) {
    segment();
    if (index === 0 && holdMs > 0) steps.push({ kind: 'pause', ms: holdMs });
  }
  if (random() < settings.long) steps.push({ kind: 'long', bytes: between(random, 17, 19) * 1024 * 1024, chunk: 64 * 1024, every: 8 });
  if (random() < 0.3) {
    steps.push({ kind: 'ask', id: 'toolu-ask-1' });
    const after = between(random, 2, 4);
    for (let index = 0; index < after; index += 1) segment();
  }
  // Enough text that every run streams for a while.
  steps.push({ kind: 'text', deltas: Array.from({ length: between(random, 8, 20) }, (_, index) => `end${index} `) });
  if (random() < 0.12) steps.push({ kind: 'fail', reason: 'model provider refused the request', quoteSecrets: random() < 0.7 });
  return { pace, history, steps };
}

function pickFate(random: () => number, settings: ExplorerSettings): Fate {
  if (settings.fates) return pick(random, settings.fates);
  const fates: Fate[] = settings.instanceFaults
    ? ['calm', 'detach', 'detach', 'kill', 'kill', 'freeze', 'freeze', 'handover', 'abandon']
    : ['calm', 'detach', 'detach', 'detach', 'abandon'];
  return pick(random, fates);
}

/** The caller of an abandoned run leaves at once (before the kernel's pause) and comes back only after the grace. */
function abandoningCut(random: () => number): Cut {
  return { kind: pick(random, ['runStarted', 'session'] as const), nth: 1, wait: { kind: 'graceOver' }, where: pick(random, ['random', 'other', 'same'] as const) };
}

function randomCut(random: () => number, multiRun: boolean, fate: Fate): Cut {
  const waits: Wait[] = [{ kind: 'now' }, { kind: 'now' }, { kind: 'ms', ms: between(random, 50, 1_200) }, { kind: 'leaseExpired' }, { kind: 'graceOver' }];
  if (multiRun) waits.push({ kind: 'nextRun' });
  const wait = fate === 'abandon' ? ({ kind: 'graceOver' } as const) : pick(random, waits);
  const where: Where = pick(random, ['random', 'random', 'other', 'other', 'same']);
  return { kind: pick(random, CUT_KINDS), nth: random() < 0.75 ? 1 : 2, wait, where };
}

function executionTag(executionId: string): string {
  return createHash('sha256').update(executionId).digest('hex').slice(0, 10);
}

/** What the run's readers share. */
class ExecutionContext {
  readonly outcome: ExecutionOutcome;
  /** Connections open to each instance: a freeze cuts them (a proxy gives up on a stalled instance). */
  readonly connections = new Map<Instance, Set<AbortController>>();
  executionId: string | undefined;
  runIds: string[] = [];
  private nextRunWaiters: Array<() => void> = [];
  finished = false;

  constructor(
    readonly world: ReattachWorld,
    readonly random: () => number,
    outcome: ExecutionOutcome,
  ) {
    this.outcome = outcome;
  }

  async thread(): Promise<ThreadView | undefined> {
    try {
      return (await this.world.observer().load(this.outcome.threadId))?.document as ThreadView | undefined;
    } catch {
      return undefined;
    }
  }

  nextRunStarted(): Promise<void> {
    if (this.finished) return Promise.resolve();
    return new Promise((resolve) => this.nextRunWaiters.push(resolve));
  }

  announceNextRun(): void {
    const waiters = this.nextRunWaiters;
    this.nextRunWaiters = [];
    for (const resolve of waiters) resolve();
  }

  finish(): void {
    this.finished = true;
    this.announceNextRun();
  }

  track(instance: Instance, controller: AbortController): () => void {
    let set = this.connections.get(instance);
    if (!set) {
      set = new Set();
      this.connections.set(instance, set);
    }
    set.add(controller);
    return () => set?.delete(controller);
  }

  cutConnectionsTo(instance: Instance): void {
    for (const controller of this.connections.get(instance) ?? []) controller.abort();
  }

  choose(where: Where, last: string | undefined): Instance {
    const up = this.world.up();
    const same = up.find((instance) => instance.name === last);
    if (where === 'same' && same) return same;
    const others = up.filter((instance) => instance.name !== last);
    return pick(this.random, where === 'other' && others.length > 0 ? others : up);
  }

  /** Waits (bounded) for a reader's wait condition. */
  async waitFor(wait: Wait): Promise<void> {
    const { world } = this;
    const deadline = Date.now() + world.options.leaseTtlMs * 4 + world.options.detachGraceMs * 3 + 10_000;
    const poll = async (ready: (thread: ThreadView | undefined) => boolean): Promise<void> => {
      while (Date.now() < deadline) {
        if (ready(await this.thread())) return;
        await delay(50);
      }
    };
    const mine = (thread: ThreadView | undefined) => (thread?.activeRun && thread.execution.executionId === this.executionId ? thread.activeRun : undefined);
    switch (wait.kind) {
      case 'now':
        return;
      case 'ms':
        await delay(wait.ms);
        return;
      case 'leaseExpired':
        await poll((thread) => {
          const lease = mine(thread);
          return lease === undefined || lease.expiresAt < world.now() || lease.detachedUntil !== undefined;
        });
        return;
      case 'graceOver':
        await poll((thread) => {
          const lease = mine(thread);
          return lease === undefined || (lease.detachedUntil !== undefined && lease.detachedUntil + 1_500 < world.now());
        });
        return;
      case 'nextRun':
        await Promise.race([this.nextRunStarted(), delay(SETTLE_MS)]);
        return;
    }
  }
}

/** Drives one reader: its first connection, then its reattaches. */
async function driveReader(
  context: ExecutionContext,
  log: ReaderLog,
  cuts: Cut[],
  first: (cut: Cut | undefined, controller: AbortController) => Promise<{ segment: Segment; instance: Instance }>,
  onRecord: (record: SseRecordWithId) => void = () => undefined,
): Promise<void> {
  const deadline = Date.now() + (context.outcome.plan.steps.some((step) => step.kind === 'long') ? LONG_READER_MS : READER_MS);
  const records = (): SseRecordWithId[] => log.segments.flatMap((segment) => segment.records);
  let cutIndex = 0;
  const nextCut = (): Cut | undefined => cuts[cutIndex++];
  const timed = (controller: AbortController): (() => void) => {
    const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
    return () => clearTimeout(timer);
  };
  let controller = new AbortController();
  let cut = nextCut();
  let clear = timed(controller);
  let { segment } = await first(cut, controller);
  clear();
  let empty = 0;
  for (let attaches = 0; ; attaches += 1) {
    if (Date.now() >= deadline) {
      log.gaveUp = 'deadline';
      return;
    }
    if (segment.end === 'refused') return;
    const last = records().at(-1);
    let wait: Wait;
    let where: Where;
    if (segment.end === 'cut' && cut) {
      ({ wait, where } = cut);
    } else {
      // The stream ended: done after a terminal event, else the client reconnects.
      if (isTerminal(last)) return;
      // A server that closes a stream having sent nothing, twice in a row counting this one, has nothing more to give.
      empty = segment.end === 'eof' && segment.records.length === 0 ? empty + 1 : 0;
      if (empty >= 1 || attaches >= MAX_ATTACHES) {
        log.gaveUp = 'silent';
        return;
      }
      wait = segment.end === 'aborted' ? { kind: 'leaseExpired' } : { kind: 'ms', ms: 150 };
      where = segment.end === 'eof' ? 'random' : 'other';
    }
    await context.waitFor(wait);
    const instance = context.choose(where, segment.instance);
    controller = new AbortController();
    cut = nextCut();
    clear = timed(controller);
    segment = await subscribeSegment(context, log, instance, last?.id, cut, controller, onRecord);
    clear();
  }
}

async function subscribeSegment(
  context: ExecutionContext,
  log: ReaderLog,
  instance: Instance,
  lastEventId: string | undefined,
  cut: Cut | undefined,
  controller: AbortController,
  onRecord: (record: SseRecordWithId) => void,
): Promise<Segment> {
  const segment: Segment = { instance: instance.name, lastEventId, status: 0, records: [], end: 'eof' };
  log.segments.push(segment);
  const untrack = context.track(instance, controller);
  try {
    const runId = context.runIds[log.run] as string;
    const identity = { threadId: context.outcome.threadId, runId, rosInvocationId: 'invocation-x' };
    let response: Response;
    try {
      response = await subscribe(instance.url, context.executionId as string, identity, lastEventId ? { 'last-event-id': lastEventId } : {}, controller.signal);
    } catch {
      segment.end = controller.signal.aborted ? 'aborted' : 'broken';
      return segment;
    }
    segment.status = response.status;
    if (response.status !== 200) {
      segment.end = 'refused';
      segment.code = ((await response.json().catch(() => ({}))) as { error?: { code?: string } }).error?.code;
      return segment;
    }
    await readSegment(response, segment, cut, controller, onRecord);
    return segment;
  } finally {
    untrack();
  }
}

/**
 * A reader's first connection without an id (the current run from its start): only once the task is
 * known — before, the execution has no live task to observe (404, docs/protocol.md §6.14), which a
 * client meets by trying again. Undefined when the run ended before the reader came (nothing to read
 * from its start without an id).
 */
async function subscribeFromStart(
  context: ExecutionContext,
  log: ReaderLog,
  instance: () => Instance,
  cut: Cut | undefined,
  controller: AbortController,
  settled: () => boolean,
): Promise<{ segment: Segment; instance: Instance } | undefined> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const target = instance();
    const segment = await subscribeSegment(context, log, target, undefined, cut, controller, () => undefined);
    if (!(segment.end === 'refused' && segment.code === 'EXECUTION_NOT_FOUND') || Date.now() > deadline) return { segment, instance: target };
    log.segments.pop();
    if (settled()) return undefined;
    await delay(100);
  }
}

function secretsFor(seed: number): { iacCode: Record<string, unknown>; secrets: string[] } {
  const llm = `kx-SECRET-s${seed}-llm-key`;
  const header = `hv-SECRET-s${seed}-llm-header`;
  const accessKey = `ak-SECRET-s${seed}-access-secret`;
  const token = `st-SECRET-s${seed}-sts-token`;
  return {
    iacCode: {
      rosInvocationId: 'invocation-x',
      llmApiKey: llm,
      llmHeaders: { 'X-Provider-Token': header },
      alibabaCloud: { accessKeyId: 'AKID-public', accessKeySecret: accessKey, securityToken: token },
    },
    secrets: [llm, header, accessKey, token],
  };
}

/** The interrupt a run ended with, from any reader that got its end. */
function interruptOf(readers: readonly ReaderLog[]): string | undefined {
  for (const reader of readers) {
    for (const record of reader.segments.flatMap((segment) => segment.records)) {
      const outcome = record.event['outcome'] as { type?: string; interrupts?: Array<{ id: string }> } | undefined;
      if (record.event.type === 'RUN_FINISHED' && outcome?.type === 'interrupt' && outcome.interrupts?.[0]) return outcome.interrupts[0].id;
    }
  }
  return undefined;
}

/** A takeover's fork point, as the first batch of its epoch names it (docs/state-store.md "The event journal"). */
export interface Fork {
  epoch: number;
  fromEpoch: number;
  fromSeq: number;
}

/** The fork points the raw journal names. */
export function forksOf(batches: readonly JournalBatch[]): Fork[] {
  return batches.flatMap((batch) => (batch.start?.kind === 'takeover' ? [{ epoch: batch.epoch, fromEpoch: batch.start.fromEpoch ?? 0, fromSeq: batch.start.fromSeq ?? 0 }] : []));
}

/**
 * Whether the event at `id` lies on a dead branch — after the point a later epoch's takeover forked
 * from — journaled or not (an event the producer released and never journaled is placed all the same).
 */
export function onDeadBranch(forks: readonly Fork[], id: string): boolean {
  const match = /\.(\d+)\.(\d+)\.\d+$/.exec(id);
  if (!match) return false;
  const epoch = Number(match[1]);
  const seq = Number(match[2]);
  return forks.some((fork) => fork.epoch > epoch && (epoch > fork.fromEpoch || (epoch === fork.fromEpoch && seq > fork.fromSeq)));
}

/** Explores one execution from `seed`. */
export async function exploreExecution(world: ReattachWorld, seed: number, settings: ExplorerSettings): Promise<ExecutionOutcome> {
  const random = seededRandom(seed);
  const fate = pickFate(random, settings);
  const plan = makePlan(random, settings, fate === 'abandon' ? world.options.detachGraceMs + 4_000 : 0);
  const expected = expectedTurns(plan);
  const threadId = `thread-x${seed}-${Date.now().toString(36)}`;
  const { iacCode, secrets } = secretsFor(seed);
  const outcome: ExecutionOutcome = {
    seed,
    fate,
    threadId,
    executionId: undefined,
    taskId: undefined,
    plan,
    expected,
    runs: [],
    references: new Map(),
    readers: [],
    secrets,
    cancelled: false,
    taskState: undefined,
    journalFaults: settings.journalFaults && random() < 0.3,
    notes: [],
    journalRunStarts: new Set(),
    forks: [],
    futureSweeps: [],
  };
  if (outcome.journalFaults) {
    const faults = seededRandom(seed * 7 + 1);
    world.journalPolicies.set(threadId, { random: faults, fail: 0.04, late: 0.25, landsAfterTimeout: 0.04, slowRead: 0.3, lateMs: 700 });
  }
  const context = new ExecutionContext(world, random, outcome);
  const readerRuns: Array<Promise<void>> = [];
  const straddlers: Array<Promise<void>> = [];
  let readerCount = 0;
  const newReader = (role: Role, run: number): ReaderLog => {
    readerCount += 1;
    const reader: ReaderLog = { name: `${role}${readerCount}`, role, run, segments: [] };
    outcome.readers.push(reader);
    return reader;
  };

  try {
    for (let run = 0; run < expected.length; run += 1) {
      const interruptId = run > 0 ? interruptOf(outcome.readers) : undefined;
      if (run > 0 && !interruptId) {
        outcome.notes.push(`run ${run}: no reader got the interrupt to answer; the execution stops here`);
        break;
      }
      const faultable = world.faultable();
      const producer = fate === 'kill' || fate === 'freeze' || fate === 'handover' || random() < 0.75 ? pick(random, faultable) : world.referenceInstance;
      const runId = `run-x${seed}-${run}`;
      context.runIds.push(runId);
      const record: RunRecord = { runId, instance: producer.name, startedAt: undefined, settledAt: undefined };
      outcome.runs.push(record);
      const body =
        run === 0
          ? runBody({ threadId, runId, text: exploreMessage(plan), iacCode })
          : runBody({ threadId, runId, iacCode, resume: [resolved(interruptId as string, random() < 0.5 ? { selectedId: 'plan-a' } : { freeText: `answer ${seed}` })] });
      // A sweep from the future races the resume's admission (the journal's expiry, docs/protocol.md §6.15 "What is kept").
      const lastEnd = outcome.runs.at(-2)?.settledAt;
      if (run > 0 && lastEnd !== undefined && random() < 0.4) {
        const ahead = JOURNAL_RETENTION_MS - (world.now() - lastEnd) + 300;
        outcome.futureSweeps.push({ at: world.now(), clock: world.now() + ahead });
        void pick(random, world.up())
          .futureExpirySweep(context.executionId as string, ahead)
          .catch(() => undefined);
      }
      const caller = newReader('caller', run);
      const callerCuts = Array.from({ length: fate === 'detach' || fate === 'abandon' ? between(random, 1, 3) : between(random, 0, 2) }, () =>
        randomCut(random, run < expected.length - 1, fate),
      );
      if (fate === 'abandon' && run === 0) callerCuts[0] = abandoningCut(random);
      let started!: () => void;
      const callerStarted = new Promise<void>((resolve) => (started = resolve));
      const onCallerRecord = (received: SseRecordWithId): void => {
        if (received.event.type === 'RUN_STARTED' && record.startedAt === undefined) {
          record.startedAt = world.now();
          started();
        }
      };
      const callerDone = driveReader(
        context,
        caller,
        callerCuts,
        async (cut, controller) => {
          const segment: Segment = { instance: producer.name, lastEventId: undefined, status: 0, records: [], end: 'eof' };
          caller.segments.push(segment);
          const untrack = context.track(producer, controller);
          try {
            const response = await fetch(`${producer.url}/`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
              body: JSON.stringify(body),
              signal: controller.signal,
            }).catch(() => undefined);
            if (!response) {
              segment.end = 'broken';
              return { segment, instance: producer };
            }
            segment.status = response.status;
            if (response.status !== 200) {
              segment.end = 'refused';
              segment.code = ((await response.json().catch(() => ({}))) as { error?: { code?: string } }).error?.code;
              record.refused = { status: response.status, code: segment.code };
              started();
              return { segment, instance: producer };
            }
            if (!context.executionId) {
              const thread = await context.thread();
              context.executionId = thread?.execution.executionId;
              outcome.executionId = context.executionId;
            }
            await readSegment(response, segment, cut, controller, onCallerRecord);
            return { segment, instance: producer };
          } finally {
            untrack();
          }
        },
        onCallerRecord,
      ).finally(() => started());
      (callerCuts.some((cut) => cut.wait.kind === 'nextRun') ? straddlers : readerRuns).push(callerDone);
      await Promise.race([callerStarted, delay(SETTLE_MS)]);
      if (record.refused || record.startedAt === undefined) {
        outcome.notes.push(`run ${run}: refused before its stream (${record.refused?.status ?? 'no RUN_STARTED'} ${record.refused?.code ?? ''})`);
        await Promise.all([callerDone, ...readerRuns.splice(0)]);
        break;
      }
      if (run > 0) context.announceNextRun();

      // The uncut reader: from the run's start on the reference instance, now — or, late, once the run ended.
      let lateReference = fate === 'abandon' || random() < 0.3;
      const reference = newReader('reference', run);
      outcome.references.set(run, reference);
      const settled = (): boolean => record.settledAt !== undefined;
      if (!lateReference) {
        readerRuns.push(
          (async () => {
            const controller = new AbortController();
            const first = await subscribeFromStart(context, reference, () => world.referenceInstance, undefined, controller, settled);
            if (!first) {
              lateReference = true;
              return;
            }
            await driveReader(context, reference, [], async () => first);
          })(),
        );
      }

      // Subscribers from the run's start, each with its cuts, on random instances.
      const subscribers = fate === 'abandon' ? 0 : between(random, 1, settings.subscribers);
      for (let index = 0; index < subscribers; index += 1) {
        const reader = newReader('subscriber', run);
        const cuts = Array.from({ length: between(random, 1, 3) }, () => randomCut(random, run < expected.length - 1, fate));
        const startAfter = between(random, 0, 600);
        const straddles = cuts.some((cut) => cut.wait.kind === 'nextRun');
        const done = (async () => {
          await delay(startAfter);
          let late = false;
          await driveReader(context, reader, cuts, async (cut, controller) => {
            const first = await subscribeFromStart(context, reader, () => context.choose('random', undefined), cut, controller, settled);
            if (first) return first;
            late = true;
            const segment: Segment = { instance: '-', lastEventId: undefined, status: 0, records: [], end: 'refused' };
            return { segment, instance: world.referenceInstance };
          });
          // It came after the run ended: nothing to read from the start without an id.
          if (late) outcome.readers.splice(outcome.readers.indexOf(reader), 1);
        })();
        (straddles ? straddlers : readerRuns).push(done);
      }

      // A forged id on the live run: the journal cannot honour it. (Not on an abandoned run: a reader on its instance would keep it.)
      if (random() < 0.3 && fate !== 'abandon') {
        const reader = newReader('forged', run);
        reader.forged = pick(random, ['futureSeq', 'futureEpoch', 'epochZero'] as const);
        readerRuns.push(
          (async () => {
            await delay(between(random, 100, 700));
            const thread = await context.thread();
            if (!thread?.activeRun || thread.execution.executionId !== context.executionId) {
              outcome.readers.splice(outcome.readers.indexOf(reader), 1);
              return;
            }
            const epoch = thread.execution.journalEpoch ?? 0;
            const tag = executionTag(context.executionId as string);
            const id = reader.forged === 'futureSeq' ? `${tag}.${epoch}.${5_000}.0` : reader.forged === 'futureEpoch' ? `${tag}.${epoch + 3}.1.0` : `${tag}.0.3.0`;
            const instance = context.choose('random', undefined);
            const controller = new AbortController();
            const timer = setTimeout(() => controller.abort(), 30_000);
            await subscribeSegment(context, reader, instance, id, undefined, controller, () => undefined);
            clearTimeout(timer);
          })(),
        );
      }

      // The producer's fate, a moment into the run.
      const fateDone = (async () => {
        await delay(between(random, 150, 1_500));
        if (fate === 'kill') {
          context.cutConnectionsTo(producer);
          await producer.kill();
        } else if (fate === 'freeze') {
          producer.freeze();
          context.cutConnectionsTo(producer);
          await delay(Math.floor(world.options.leaseTtlMs * (1.2 + random() * 2)));
          producer.thaw();
        } else if (fate === 'handover') {
          await producer.handOver(300);
        }
        await world.replenish();
      })();
      // Sweepers racing the producer, the readers and each other.
      const sweeps = (async () => {
        const rounds = random() < 0.5 ? between(random, 1, 3) : 0;
        for (let round = 0; round < rounds; round += 1) {
          await delay(between(random, 200, world.options.detachGraceMs + 1_500));
          const racers = world.up().filter(() => random() < 0.6);
          await Promise.all(racers.map((instance) => instance.sweepNow().catch(() => 0)));
        }
      })();

      // The run settles (its lease released), then its readers finish.
      const deadline = Date.now() + SETTLE_MS + (plan.steps.some((step) => step.kind === 'long') ? 120_000 : 0);
      for (;;) {
        const thread = await context.thread();
        if (thread?.execution.executionId === context.executionId) outcome.taskId ??= thread?.execution.taskId ?? undefined;
        if (thread && !(thread.activeRun && thread.execution.executionId === context.executionId && thread.activeRun.runId === runId)) break;
        if (Date.now() > deadline) {
          outcome.notes.push(`run ${run}: its lease was never released`);
          break;
        }
        await delay(50);
      }
      record.settledAt = world.now();
      await Promise.all([fateDone, sweeps]);
      await Promise.all(readerRuns.splice(0));
      if (lateReference) {
        const startedRecord = caller.segments[0]?.records[0];
        await driveReader(context, reference, [], async (_cut, controller) => {
          if (startedRecord?.event.type === 'RUN_STARTED') {
            // It received only RUN_STARTED, and reads the rest once the run ended.
            reference.segments.push({ instance: producer.name, lastEventId: undefined, status: 200, records: [startedRecord], end: 'cut' });
            return {
              segment: await subscribeSegment(context, reference, world.referenceInstance, startedRecord.id, undefined, controller, () => undefined),
              instance: world.referenceInstance,
            };
          }
          return {
            segment: await subscribeSegment(context, reference, world.referenceInstance, undefined, undefined, controller, () => undefined),
            instance: world.referenceInstance,
          };
        });
      }
    }
    context.finish();
    await Promise.all(straddlers);
    // A sweep from the future: 3 s before the last run's journal may go (a journal deleted now was deleted too early).
    const lastEnd = outcome.runs.at(-1)?.settledAt;
    if (outcome.executionId && lastEnd !== undefined && outcome.runs.length > 1) {
      const ahead = JOURNAL_RETENTION_MS - (world.now() - lastEnd) - 3_000;
      outcome.futureSweeps.push({ at: world.now(), clock: world.now() + ahead });
      await pick(random, world.up())
        .futureExpirySweep(outcome.executionId, ahead)
        .catch(() => 0);
    }
  } finally {
    context.finish();
    await Promise.all([...readerRuns, ...straddlers]);
  }
  const script = outcome.taskId ? world.kernel.executor.scripts.get(outcome.taskId) : undefined;
  outcome.taskState = script?.state;
  outcome.cancelled = outcome.taskId !== undefined && world.kernel.callsOf('CancelTask').some((call) => (call.params as { id?: string }).id === outcome.taskId);
  if (outcome.executionId) {
    const batches = await world
      .observer()
      .journal?.read(threadId, outcome.executionId)
      .catch(() => []);
    for (const batch of batches ?? []) {
      for (const entry of batch.entries)
        if (entry.event.type === 'RUN_STARTED') outcome.journalRunStarts.add(`${executionTag(outcome.executionId)}.${batch.epoch}.${entry.seq}.${entry.k}`);
    }
    outcome.forks = forksOf(batches ?? []);
  }
  world.journalPolicies.delete(threadId);
  return outcome;
}
