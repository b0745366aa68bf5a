/**
 * The reattach explorer's world (issue 26; docs/protocol.md §6.15): several adapter instances in
 * this process — each `createApp` behind its own loopback HTTP server, with its own store driver and
 * kernel client — on ONE store (a file-store directory, or one OSS emulator bucket through the real
 * ali-oss client) and one A2A emulator. Every instance's store and kernel go through a gate the
 * explorer works:
 *
 * - `kill`: from now on every store and kernel call of the instance hangs forever (its answers never
 *   arrive), its kernel connections are aborted and its sockets destroyed — a process that died;
 *   what its timers start hangs too, so nothing of it acts again;
 * - `freeze` … `thaw`: calls wait at the gate, and answers that arrive meanwhile are held, until the
 *   thaw lets them all go at once — SIGSTOP and SIGCONT (the instance's timers fire meanwhile, but
 *   what they do waits at the gate like everything else);
 * - `handOver`: the instance stops as a graceful shutdown does (App.stopping), then dies.
 *
 * The journal port of every instance can fail writes, answer them late, or let them land after
 * they were reported failed (a timeout), and read late — per thread, as the run's policy says. The
 * world records every journal deletion (with the deleter's clock), counts takeovers and watches
 * every log line for secrets.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { createLogger } from '../../lib/adapters/logger.js';
import { listen, type RunningServer } from '../../lib/adapters/node-server/node-server.js';
import { versions } from '../../lib/adapters/versions.js';
import type { JsonObject, WireSendParams, WireStreamItem, WireTask } from '../../lib/core/a2a/wire-types.js';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import {
  type A2AKernel,
  type BatchKey,
  type DueEntry,
  type EventJournal,
  type KernelCallOptions,
  type SessionRestoreResult,
  type StoredDocument,
  StoreUnavailableError,
  type ThreadStore,
} from '../../lib/core/ports.js';
import { JOURNAL_RETENTION_MS } from '../../lib/core/reattach/execution-logs.js';
import { sweep } from '../../lib/core/reattach/sweeper.js';
import { secretFrom } from '../../lib/core/secret.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { type App, createApp } from '../../lib/http/app.js';
import { ossStore, TEST_BUCKET } from './oss.js';

export type StoreKind = 'file' | 'oss';

export interface WorldOptions {
  store: StoreKind;
  /** Instances besides the reference one (which is never faulted). */
  instances: number;
  leaseTtlMs: number;
  leaseRenewMs: number;
  detachGraceMs: number;
  /**
   * Due entries planted at the head of the due list for threads whose document can never be read
   * (an unreadable, corrupt thread): every sweep fails on them (default none).
   */
  poisonDue?: number;
}

/** Threads whose document no instance can read (WorldOptions.poisonDue). */
const POISONED = 'poisoned-thread-';

/** What a run's journal suffers on every instance (per call, by chance). */
export interface JournalPolicy {
  random: () => number;
  /** A write fails, nothing written. */
  fail: number;
  /** A write answers late (lands, then answers after up to `lateMs`). */
  late: number;
  /** A write is reported failed after a timeout and lands later. */
  landsAfterTimeout: number;
  /** A read answers late. */
  slowRead: number;
  lateMs: number;
}

/** A journal deletion: who deleted which execution's journal, at which time by the deleter's clock. */
export interface Removal {
  instance: string;
  threadId: string;
  executionId: string;
  /** By the deleter's clock. */
  at: number;
  /** By the world's clock. */
  worldAt: number;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** Where an instance's I/O passes: open, frozen (held until the thaw) or dead (held forever). */
export class Gate {
  state: 'up' | 'frozen' | 'killed' = 'up';
  readonly dead = new AbortController();
  private thawed: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;

  freeze(): void {
    if (this.state !== 'up') return;
    this.state = 'frozen';
    this.thawed = new Promise((resolve) => (this.release = resolve));
  }

  thaw(): void {
    if (this.state !== 'frozen') return;
    this.state = 'up';
    this.release();
  }

  kill(): void {
    this.state = 'killed';
    this.dead.abort(new Error('instance killed'));
  }

  /** Resolves when the instance may act: now when up, at the thaw when frozen, never when dead. */
  private passage(): Promise<void> {
    if (this.state === 'killed') return never();
    if (this.state === 'frozen') return this.thawed.then(() => this.passage());
    return Promise.resolve();
  }

  async call<T>(work: () => Promise<T>): Promise<T> {
    await this.passage();
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await work() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    // An answer that reaches a frozen process waits for it; a dead one never gets it.
    await this.passage();
    if (outcome.ok) return outcome.value;
    throw outcome.error;
  }

  stream<T>(open: () => AsyncIterable<T>): AsyncIterable<T> {
    const gate = this;
    return {
      [Symbol.asyncIterator](): AsyncIterator<T> {
        let inner: AsyncIterator<T> | undefined;
        return {
          next: () =>
            gate.call(async () => {
              inner ??= open()[Symbol.asyncIterator]();
              return inner.next();
            }),
          return: async (value?: unknown) => {
            await inner?.return?.(value as T).catch(() => undefined);
            return { done: true, value: value as T };
          },
        };
      },
    };
  }

  /** The caller's signal, aborted as well when the instance dies (its sockets close). */
  signal(options: KernelCallOptions | undefined): KernelCallOptions {
    const signal = options?.signal ? AbortSignal.any([options.signal, this.dead.signal]) : this.dead.signal;
    return { ...options, signal };
  }
}

class GatedKernel implements A2AKernel {
  constructor(
    private readonly inner: A2AKernel,
    private readonly gate: Gate,
  ) {}

  sendStreamingMessage(params: WireSendParams, options?: KernelCallOptions): AsyncIterable<WireStreamItem> {
    return this.gate.stream(() => this.inner.sendStreamingMessage(params, this.gate.signal(options)));
  }

  sendMessage(params: WireSendParams, options?: KernelCallOptions): Promise<WireStreamItem> {
    return this.gate.call(() => this.inner.sendMessage(params, this.gate.signal(options)));
  }

  getTask(taskId: string, historyLength: number, options?: KernelCallOptions): Promise<WireTask> {
    return this.gate.call(() => this.inner.getTask(taskId, historyLength, this.gate.signal(options)));
  }

  cancelTask(taskId: string, options?: KernelCallOptions): Promise<void> {
    return this.gate.call(() => this.inner.cancelTask(taskId, this.gate.signal(options)));
  }

  listTasks(contextId: string, historyLength: number, maxTasks: number, options?: KernelCallOptions): Promise<WireTask[] | undefined> {
    return this.gate.call(() => this.inner.listTasks(contextId, historyLength, maxTasks, this.gate.signal(options)));
  }

  subscribeToTask(taskId: string, options?: KernelCallOptions): AsyncIterable<WireStreamItem> {
    return this.gate.stream(() => this.inner.subscribeToTask(taskId, this.gate.signal(options)));
  }

  ensureSessionRestored(request: { cwd: string; sessionId: string; taskId: string }, options?: KernelCallOptions): Promise<SessionRestoreResult> {
    return this.gate.call(() => this.inner.ensureSessionRestored(request, this.gate.signal(options)));
  }

  pipelineState(taskId: string, afterSequence: number, options?: KernelCallOptions): Promise<JsonObject | undefined> {
    return this.gate.call(() => this.inner.pipelineState(taskId, afterSequence, this.gate.signal(options)));
  }
}

/** The journal port with the run's faults (JournalPolicy), deletions recorded. */
class FaultyJournal implements EventJournal {
  constructor(
    private readonly inner: EventJournal,
    private readonly world: ReattachWorld,
    private readonly instance: string,
    private readonly clock: () => number,
  ) {}

  async append(threadId: string, batch: JournalBatch): Promise<void> {
    const policy = this.world.journalPolicies.get(threadId);
    if (!policy) return this.inner.append(threadId, batch);
    const roll = policy.random();
    const lateness = Math.floor(policy.random() * policy.lateMs);
    if (roll < policy.fail) throw new StoreUnavailableError('injected: the journal write failed');
    if (roll < policy.fail + policy.landsAfterTimeout) {
      const landing = delay(lateness + 50).then(() => this.inner.append(threadId, batch));
      landing.catch(() => undefined);
      await delay(Math.floor(lateness / 2));
      throw new StoreUnavailableError('injected: the journal write timed out (it lands later)');
    }
    await this.inner.append(threadId, batch);
    if (roll < policy.fail + policy.landsAfterTimeout + policy.late) await delay(lateness);
  }

  async read(threadId: string, executionId: string, after?: BatchKey): Promise<JournalBatch[]> {
    const policy = this.world.journalPolicies.get(threadId);
    if (policy && policy.random() < policy.slowRead) await delay(Math.floor(policy.random() * policy.lateMs));
    return this.inner.read(threadId, executionId, after);
  }

  async remove(threadId: string, executionId: string): Promise<void> {
    this.world.removals.push({ instance: this.instance, threadId, executionId, at: this.clock(), worldAt: this.world.now() });
    return this.inner.remove(threadId, executionId);
  }

  schedule(entry: DueEntry, replacing?: DueEntry): Promise<void> {
    return this.inner.schedule(entry, replacing);
  }

  unschedule(entry: DueEntry): Promise<void> {
    return this.inner.unschedule(entry);
  }

  due(now: number, limit: number): Promise<DueEntry[]> {
    return this.inner.due(now, limit);
  }
}

class GatedJournal implements EventJournal {
  constructor(
    private readonly inner: EventJournal,
    private readonly gate: Gate,
  ) {}
  append(threadId: string, batch: JournalBatch): Promise<void> {
    return this.gate.call(() => this.inner.append(threadId, batch));
  }
  read(threadId: string, executionId: string, after?: BatchKey): Promise<JournalBatch[]> {
    return this.gate.call(() => this.inner.read(threadId, executionId, after));
  }
  remove(threadId: string, executionId: string): Promise<void> {
    return this.gate.call(() => this.inner.remove(threadId, executionId));
  }
  schedule(entry: DueEntry, replacing?: DueEntry): Promise<void> {
    return this.gate.call(() => this.inner.schedule(entry, replacing));
  }
  unschedule(entry: DueEntry): Promise<void> {
    return this.gate.call(() => this.inner.unschedule(entry));
  }
  due(now: number, limit: number): Promise<DueEntry[]> {
    return this.gate.call(() => this.inner.due(now, limit));
  }
}

class GatedStore implements ThreadStore {
  readonly kind: ThreadStore['kind'];
  readonly journal: EventJournal | undefined;

  constructor(
    private readonly inner: ThreadStore,
    private readonly gate: Gate,
    journal: EventJournal | undefined,
  ) {
    this.kind = inner.kind;
    this.journal = journal;
  }

  load(threadId: string): Promise<StoredDocument | undefined> {
    if (threadId.startsWith(POISONED)) return this.gate.call(() => Promise.reject(new StoreUnavailableError('injected: this thread cannot be read')));
    return this.gate.call(() => this.inner.load(threadId));
  }

  save(threadId: string, document: unknown, expected: number): Promise<number> {
    return this.gate.call(() => this.inner.save(threadId, document, expected));
  }

  cached(threadId: string): StoredDocument | undefined {
    return this.inner.cached?.(threadId);
  }
}

/** The store with its journal's due list narrowed (a sweep that only looks at some entries). */
function narrowedStore(store: ThreadStore, journal: EventJournal, keep: (entry: DueEntry) => boolean): ThreadStore {
  const narrowed: EventJournal = {
    append: (threadId, batch) => journal.append(threadId, batch),
    read: (threadId, executionId, after) => journal.read(threadId, executionId, after),
    remove: (threadId, executionId) => journal.remove(threadId, executionId),
    schedule: (entry, replacing) => journal.schedule(entry, replacing),
    unschedule: (entry) => journal.unschedule(entry),
    due: async (now, limit) => (await journal.due(now, limit)).filter(keep),
  };
  return { kind: store.kind, load: (threadId) => store.load(threadId), save: (threadId, document, expected) => store.save(threadId, document, expected), journal: narrowed };
}

const LOG_KEPT = 3_000;

export class Instance {
  readonly gate = new Gate();
  readonly store: GatedStore;
  readonly kernel: A2AKernel;
  readonly app: App;
  /** The latest log lines (for a violation's report). */
  readonly logs: string[] = [];
  stopping = false;
  private running: RunningServer | undefined;
  private readonly driver: ThreadStore;

  constructor(
    readonly name: string,
    readonly world: ReattachWorld,
    /** Protected: the reference readers' instance, never faulted. */
    readonly reference: boolean,
  ) {
    const driver = world.newDriver();
    this.driver = driver;
    const journal = driver.journal ? new GatedJournal(new FaultyJournal(driver.journal, world, name, world.now), this.gate) : undefined;
    this.store = new GatedStore(driver, this.gate, journal);
    this.kernel = new GatedKernel(new SdkA2AKernel({ url: world.kernel.url, token: secretFrom(undefined) }), this.gate);
    const logger = createLogger((line) => this.log(line));
    const { leaseTtlMs, leaseRenewMs, detachGraceMs } = world.options;
    this.app = createApp({
      config: { authToken: undefined, allowedRoots: [], defaultLanguage: 'en', heartbeatMs: 60_000, leaseTtlMs, leaseRenewMs, detachGraceMs },
      storeFor: () => this.store,
      backgroundStore: () => this.store,
      storeKind: this.store.kind,
      kernel: this.kernel,
      images: new SharpImageCodec(),
      logger,
      clock: world.now,
      versions,
    });
  }

  async start(): Promise<void> {
    const running = await listen(
      this.app,
      createLogger(() => undefined),
      '127.0.0.1',
      0,
      {},
    );
    this.running = running;
    this.address = running.url;
  }

  /** Where its server listened (a killed instance refuses connections there). */
  get url(): string {
    return this.address;
  }
  private address = 'http://127.0.0.1:9';

  get up(): boolean {
    return this.gate.state === 'up' && !this.stopping;
  }

  freeze(): void {
    this.gate.freeze();
  }

  thaw(): void {
    this.gate.thaw();
  }

  async kill(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.gate.kill();
    await running?.close().catch(() => undefined);
  }

  /** A graceful stop: every resumable run hands itself over (docs/protocol.md §6.15), then the process exits. */
  async handOver(settleMs: number): Promise<void> {
    this.stopping = true;
    this.running?.stopAccepting();
    this.running?.stopping();
    await delay(settleMs);
    await this.kill();
  }

  /** One sweep now, as this instance's sweeper makes it (lib/core/reattach/sweeper.ts). */
  sweepNow(): Promise<number> {
    return sweep({
      store: this.store,
      kernel: this.kernel,
      clock: this.world.now,
      logger: createLogger((line) => this.log(line)),
      language: 'en',
      retentionMs: JOURNAL_RETENTION_MS,
    });
  }

  /**
   * A sweep of the expiry entries of one execution by an instance whose clock is `aheadMs` ahead —
   * the sweep that instance would make that much later (the journal's retention is 15 minutes and has
   * no knob; the clock of every other decision stays the world's).
   */
  futureExpirySweep(executionId: string, aheadMs: number): Promise<number> {
    const clock = () => this.world.now() + aheadMs;
    if (!this.driver.journal) return Promise.resolve(0);
    // Its deletions are stamped with its own clock.
    const journal = new GatedJournal(new FaultyJournal(this.driver.journal, this.world, `${this.name}+${Math.round(aheadMs / 1000)}s`, clock), this.gate);
    const store = narrowedStore(this.store, journal, (entry) => entry.kind === 'expire' && entry.executionId === executionId);
    return sweep({ store, kernel: this.kernel, clock, logger: createLogger((line) => this.log(line)), language: 'en', retentionMs: JOURNAL_RETENTION_MS });
  }

  private log(line: string): void {
    this.logs.push(line);
    if (this.logs.length > LOG_KEPT) this.logs.splice(0, this.logs.length - LOG_KEPT);
    this.world.watchLog(this.name, line);
  }
}

/** A secret marker every secret the explorer sends carries (and nothing else does). */
export const SECRET_MARK = 'SECRET-';

export class ReattachWorld {
  readonly instances: Instance[] = [];
  readonly removals: Removal[] = [];
  readonly journalPolicies = new Map<string, JournalPolicy>();
  /** Takeovers seen in the logs, per thread. */
  readonly takeovers = new Map<string, number>();
  /** Detached runs the sweeper ended, per thread (from the logs). */
  readonly sweptRuns = new Map<string, number>();
  /** Log lines that carried a secret marker (instance, line). */
  readonly leakedLogLines: Array<{ instance: string; line: string }> = [];
  private offset = 0;
  private counter = 0;
  readonly now = (): number => Date.now() + this.offset;

  private constructor(
    readonly options: WorldOptions,
    readonly kernel: A2AEmulator,
    readonly oss: OssEmulator | undefined,
    readonly stateDir: string | undefined,
  ) {}

  static async start(options: WorldOptions): Promise<ReattachWorld> {
    const kernel = await startA2AEmulator({ silenceMs: 1_500 });
    const oss = options.store === 'oss' ? await startOssEmulator() : undefined;
    const stateDir = options.store === 'file' ? await mkdtemp(join(tmpdir(), 'agui-reattach-explorer-')) : undefined;
    const world = new ReattachWorld(options, kernel, oss, stateDir);
    await world.spawn(true);
    for (let index = 0; index < options.instances; index += 1) await world.spawn(false);
    const due = world.observer().journal;
    for (let index = 0; index < (options.poisonDue ?? 0); index += 1) {
      await due?.schedule({ kind: 'detached', threadId: `${POISONED}${index}`, executionId: `poisoned-execution-${index}`, dueAt: world.now() - 3_600_000 + index });
    }
    return world;
  }

  /** A store driver of its own (its own client and caches), on the world's one store. */
  newDriver(): ThreadStore {
    if (this.oss) return ossStore(this.oss, { timeoutMs: 5_000 });
    return new FileThreadStore(this.stateDir as string);
  }

  /** A store for the explorer's own observations: no gate, no faults. */
  readonly observer = (): ThreadStore => (this.observerStore ??= this.newDriver());
  private observerStore: ThreadStore | undefined;

  async spawn(reference = false): Promise<Instance> {
    this.counter += 1;
    const instance = new Instance(`${reference ? 'R' : 'I'}${this.counter}`, this, reference);
    await instance.start();
    this.instances.push(instance);
    return instance;
  }

  get referenceInstance(): Instance {
    return this.instances[0] as Instance;
  }

  up(): Instance[] {
    return this.instances.filter((instance) => instance.up);
  }

  /** Instances that may be faulted: up and not the reference. */
  faultable(): Instance[] {
    return this.up().filter((instance) => !instance.reference);
  }

  /** Keeps `options.instances` faultable instances up (a killed one is replaced, as FC starts another). */
  async replenish(): Promise<void> {
    while (this.faultable().length < this.options.instances) await this.spawn(false);
  }

  watchLog(instance: string, line: string): void {
    const secret = line.indexOf(SECRET_MARK);
    if (secret >= 0) this.leakedLogLines.push({ instance, line: `${line.slice(0, 160)} … ${line.slice(Math.max(160, secret - 120), secret + 60)}` });
    const counter = line.includes('"run taken over"') ? this.takeovers : line.includes('"detached run ended') ? this.sweptRuns : undefined;
    if (counter) {
      const threadId = /"threadId":"([^"]+)"/.exec(line)?.[1];
      if (threadId) counter.set(threadId, (counter.get(threadId) ?? 0) + 1);
    }
  }

  /** Every stored object's text (thread documents, journal, due list) with its name. */
  async storedTexts(): Promise<Array<{ name: string; text: string }>> {
    if (this.oss) {
      return this.oss.objectKeys(TEST_BUCKET).map((key) => ({ name: key, text: this.oss?.readObject(TEST_BUCKET, key)?.toString('utf8') ?? '' }));
    }
    const texts: Array<{ name: string; text: string }> = [];
    const dir = this.stateDir as string;
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      texts.push({ name: path.slice(dir.length + 1), text: await readFile(path, 'utf8').catch(() => '') });
    }
    return texts;
  }

  async close(): Promise<void> {
    // A frozen instance dies frozen: what it held never goes out.
    for (const instance of this.instances) await instance.kill();
    await this.kernel.close();
    await this.oss?.close();
    if (this.stateDir) await rm(this.stateDir, { recursive: true, force: true }).catch(() => undefined);
  }
}
