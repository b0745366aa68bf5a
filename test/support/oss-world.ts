/**
 * Several OSS store instances on one emulator bucket whose every request waits at a gate until a
 * schedule lets it through — the interleavings of FC instances that freeze between requests, whose
 * answers arrive late or never, and whose clocks (OSS's servers') disagree (docs/state-store.md
 * "Consistency assumptions"). Everything still goes over the real ali-oss client to the emulator:
 * the gate only decides *when* a request is sent and *when* its answer reaches the store, and
 * models the one fault neither can produce on cue, a create that lands after its writer gave up
 * (`late`). Used by the deterministic schedules (test/oss-store/schedules.test.ts) and the
 * adversarial suite (test/support/oss-adversary.ts).
 *
 * Requests go one at a time, and after each one the world waits until every store has reached its
 * next request or finished, so a schedule is a sequence of choices and a seed replays it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { OssRequestError } from '../../lib/adapters/oss-store/errors.js';
import type { Hold } from '../../lib/adapters/oss-store/hold.js';
import type { ListOptions, ListPage, OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { RevisionCache } from '../../lib/adapters/oss-store/revision-cache.js';
import { OssThreadStore } from '../../lib/adapters/oss-store/thread-store.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { ossObjects } from './oss.js';

export type OperationName = 'PutObject' | 'GetObject' | 'ListObjectsV2' | 'DeleteObject' | 'DeleteMultipleObjects';

/** A request waiting at its instance's gate. */
export interface WaitingCall {
  readonly id: number;
  readonly instance: string;
  readonly operation: OperationName;
  /** The object key, a listing's prefix, or the first key of a multi-delete. */
  readonly name: string;
}

interface Waiter extends WaitingCall {
  send: () => Promise<unknown>;
  settle: (outcome: Outcome) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** An answer that arrived while its instance was frozen: handed over by `deliver`. */
export interface ParkedAnswer {
  readonly call: WaitingCall;
  readonly outcome: Outcome;
  readonly settle: (outcome: Outcome) => void;
}

/** A request its writer gave up on (a timeout) that has not reached OSS yet: `land` sends it. */
export interface GhostRequest {
  readonly call: WaitingCall;
  readonly send: () => Promise<unknown>;
}

export interface InstanceOptions {
  hold: Hold;
  rememberDocuments: boolean;
  keepRevisions?: number;
  /** Threads remembered (RevisionCache capacity); a small one forgets. */
  cacheCapacity?: number;
}

export class StoreInstance {
  readonly store: OssThreadStore;
  readonly cache: RevisionCache;
  /** Requests pass at once when open (a free-running instance). */
  open = false;

  constructor(
    readonly name: string,
    private readonly world: OssWorld,
    options: InstanceOptions,
  ) {
    this.cache = new RevisionCache(options.cacheCapacity ?? 10_000);
    const real = ossObjects(world.emulator, { timeoutMs: 5_000 });
    const gated = (operation: OperationName, name: string, send: () => Promise<unknown>) => world.pass(this, operation, name, send);
    const objects: OssObjects = {
      create: (key, body) => gated('PutObject', key, () => real.create(key, body)),
      read: (key) => gated('GetObject', key, () => real.read(key)) as Promise<Buffer | undefined>,
      list: (prefix: string, listOptions: ListOptions) => gated('ListObjectsV2', prefix, () => real.list(prefix, listOptions)) as Promise<ListPage>,
      remove: (key) => gated('DeleteObject', key, () => real.remove(key)) as Promise<void>,
      removeMany: (keys) => gated('DeleteMultipleObjects', keys[0] ?? '', () => real.removeMany(keys)) as Promise<void>,
    };
    const storeOptions = { prefix: 'agui', cache: this.cache, hold: options.hold, rememberDocuments: options.rememberDocuments, backoffMs: 0 };
    this.store = new OssThreadStore(objects, options.keepRevisions === undefined ? storeOptions : { ...storeOptions, keepRevisions: options.keepRevisions });
  }

  /** This instance's requests waiting now. */
  waiting(): WaitingCall[] {
    return this.world.waiting().filter((call) => call.instance === this.name);
  }

  /** Waits until this instance has a request at its gate and returns the oldest one. */
  async next(): Promise<WaitingCall> {
    for (let turn = 0; turn < 1_000; turn += 1) {
      const [call] = this.waiting();
      if (call) return call;
      await nextTurn();
    }
    throw new Error(`${this.name} never reached a request`);
  }

  /** Lets this instance's oldest waiting request through and hands its answer over. */
  async step(): Promise<WaitingCall> {
    const call = await this.next();
    await this.world.step(call);
    return call;
  }

  /** Steps until the waiting request is `operation` (not sent) or `done` settles; returns what waits then. */
  async stepUntil(operation: OperationName, done?: Promise<unknown>): Promise<WaitingCall | undefined> {
    let finished = false;
    void done?.then(
      () => (finished = true),
      () => (finished = true),
    );
    for (;;) {
      await this.world.quiesce();
      if (finished) return undefined;
      const call = await this.next();
      if (call.operation === operation) return call;
      await this.world.step(call);
    }
  }

  /** Lets every request of this instance through, those waiting and those to come, until `work` settles. */
  async run<T>(work: Promise<T>): Promise<T> {
    this.open = true;
    for (const call of this.waiting()) await this.world.step(call);
    try {
      return await work;
    } finally {
      this.open = false;
    }
  }
}

export class OssWorld {
  /** The true time (epoch ms) every OSS server's clock starts from; skews are added per request. */
  now = Date.UTC(2026, 11, 1, 12, 0, 0);
  /** The skew (ms) of the server that answers the next request (setSkew sets its rule). */
  nextSkewMs = 0;
  private readonly waiters: Waiter[] = [];
  private nextId = 1;
  private readonly instances = new Map<string, StoreInstance>();

  private constructor(readonly emulator: OssEmulator) {}

  static async start(): Promise<OssWorld> {
    let world: OssWorld | undefined;
    const emulator = await startOssEmulator({ clock: () => world?.now ?? Date.now(), skew: () => world?.nextSkewMs ?? 0 });
    world = new OssWorld(emulator);
    return world;
  }

  instance(name: string, options: InstanceOptions): StoreInstance {
    const instance = new StoreInstance(name, this, options);
    this.instances.set(name, instance);
    return instance;
  }

  advance(ms: number): void {
    this.now += ms;
  }

  waiting(): WaitingCall[] {
    return this.waiters.map(({ id, instance, operation, name }) => ({ id, instance, operation, name }));
  }

  /** Called by a gated request: waits for the schedule unless its instance is open. */
  pass(instance: StoreInstance, operation: OperationName, name: string, send: () => Promise<unknown>): Promise<unknown> {
    if (instance.open) return send();
    return new Promise((resolve, reject) => {
      this.waiters.push({
        id: this.nextId++,
        instance: instance.name,
        operation,
        name,
        send,
        settle: (outcome) => (outcome.ok ? resolve(outcome.value) : reject(outcome.error)),
      });
    });
  }

  /** Sends the request and hands its answer (or error) to its store, then lets everything settle. */
  async step(call: WaitingCall): Promise<void> {
    const waiter = this.take(call);
    waiter.settle(await outcomeOf(waiter.send()));
    await this.quiesce();
  }

  /** Sends the request; its answer waits (the instance froze before reading it) until `deliver`. */
  async apply(call: WaitingCall): Promise<ParkedAnswer> {
    const waiter = this.take(call);
    const outcome = await outcomeOf(waiter.send());
    return { call, outcome, settle: waiter.settle };
  }

  async deliver(parked: ParkedAnswer): Promise<void> {
    parked.settle(parked.outcome);
    await this.quiesce();
  }

  /** The request is sent and applied, but its answer is lost on the way back (a dropped connection). */
  async lose(call: WaitingCall): Promise<void> {
    this.emulator.addFault({ operation: call.operation, keyPrefix: call.name, dropAfterApply: true });
    await this.step(call);
  }

  /** The writer times out before the request reaches OSS; the request is still on its way (`land`). */
  async abandon(call: WaitingCall): Promise<GhostRequest> {
    const waiter = this.take(call);
    waiter.settle({ ok: false, error: new OssRequestError(call.operation as 'PutObject', 'transient', -2, 'ResponseTimeoutError', undefined) });
    await this.quiesce();
    return { call, send: waiter.send };
  }

  /** A request its writer gave up on reaches OSS now. */
  async land(ghost: GhostRequest): Promise<void> {
    await outcomeOf(ghost.send());
    await this.quiesce();
  }

  /** Waits until no store can move without a request being let through. */
  async quiesce(): Promise<void> {
    for (let turn = 0; turn < 4; turn += 1) await nextTurn();
  }

  async close(): Promise<void> {
    for (const waiter of this.waiters.splice(0)) waiter.settle({ ok: false, error: new Error('the world closed') });
    await this.emulator.close();
  }

  private take(call: WaitingCall): Waiter {
    const index = this.waiters.findIndex((waiter) => waiter.id === call.id);
    const [waiter] = index < 0 ? [] : this.waiters.splice(index, 1);
    if (!waiter) throw new Error(`request ${call.id} (${call.operation} ${call.name}) is not waiting`);
    return waiter;
  }
}

async function outcomeOf(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
