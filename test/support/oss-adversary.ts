/**
 * The adversarial suite of the OSS compare-and-swap (issue 23; docs/state-store.md "Proofs of the
 * invariants"): seeded random schedules over several store instances writing one thread, each
 * request let through by the schedule (test/support/oss-world.ts). The schedule freezes instances
 * for many steps (past KEEP foreign commits, and with the clock jumped past the hold), freezes a
 * request after it was applied and before its answer is read, loses answers, drops requests, lets
 * abandoned creates land late, runs prunes concurrently with everything, jumps the clock, and serves
 * every request from one of several OSS servers whose clocks are off by up to the stated bound.
 * The history is then judged by test/support/oss-history-checks.ts.
 *
 * Used by test/oss-store/adversarial.test.ts (a bounded set in `npm test`) and `npm run soak:oss`
 * (the long matrix).
 */
import { DEFAULT_HOLD, type Hold, STAMP_ERROR_MS } from '../../lib/adapters/oss-store/hold.js';
import { StoreConflictError, StoreCorruptError } from '../../lib/core/ports.js';
import type { History, SaveRecord } from './oss-history-checks.js';
import type { GhostRequest, InstanceOptions, OssWorld, ParkedAnswer, StoreInstance, WaitingCall } from './oss-world.js';

export type StoreVariant = 'production' | 'verify-every-save' | 'no-hold';

export interface AdversaryConfig {
  seed: number;
  variant: StoreVariant;
  instances: number;
  writersPerInstance: number;
  savesPerWriter: number;
  /** Each OSS server's clock is off by up to this much either way (default the stated bound). */
  maxSkewMs?: number;
  /** Stalls, frozen answers, lost and late requests, clock jumps; off: a calm run (the cost figure). */
  faults: boolean;
  /** How often a writer bases a save on what its instance remembers instead of a load; default 0.4. */
  fromMemory?: number;
  keepRevisions?: number;
}

export interface AdversaryRun {
  history: History;
  finalEntries: string[];
  /** OSS requests the run made (the final check's own load excluded). */
  requests: number;
  steps: number;
}

const SERVERS = 6;
const MINUTE = 60_000;

/** mulberry32: small, seedable, good enough to pick schedules. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function storeOptions(variant: StoreVariant, keepRevisions: number): InstanceOptions {
  const hold: Hold = variant === 'no-hold' ? { holdMs: 0, marginMs: 0, proveByTime: false } : { ...DEFAULT_HOLD, proveByTime: variant === 'production' };
  return { hold, rememberDocuments: variant !== 'no-hold', keepRevisions };
}

export async function runAdversary(world: OssWorld, config: AdversaryConfig): Promise<AdversaryRun> {
  const random = seededRandom(config.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const threadId = `adversary-${config.seed}-${config.variant}-${Math.floor(random() * 1e9)}`;
  const history: History = { saves: [], loads: [], corruptLoads: 0 };
  let sequence = 0;
  const maxSkew = config.maxSkewMs ?? STAMP_ERROR_MS;
  // Extremes of the bound come up often: that is where a margin breaks.
  const drawSkew = () => (random() < 0.5 ? pick([-maxSkew, maxSkew]) : Math.round((random() * 2 - 1) * maxSkew));
  const skews = Array.from({ length: SERVERS }, drawSkew);
  const instances = Array.from({ length: config.instances }, (_, index) => world.instance(`${threadId}-i${index}`, storeOptions(config.variant, config.keepRevisions ?? 8)));

  async function writer(instance: StoreInstance, name: string): Promise<void> {
    for (let count = 0; count < config.savesPerWriter; count += 1) {
      let base: { document: unknown; revision: number } | undefined;
      const remembered = random() < (config.fromMemory ?? 0.4) ? instance.store.cached(threadId) : undefined;
      if (remembered) base = remembered;
      else {
        const startedAt = ++sequence;
        try {
          base = await instance.store.load(threadId);
          const entries = entriesOf(base?.document);
          history.loads.push({ revision: base?.revision ?? 0, entries, startedAt });
        } catch (error) {
          if (error instanceof StoreCorruptError) history.corruptLoads += 1;
          continue;
        }
      }
      const baseEntries = entriesOf(base?.document);
      const save: SaveRecord = { entry: `${name}#${count}`, expected: base?.revision ?? 0, baseEntries, outcome: 'unavailable', startedAt: ++sequence, finishedAt: 0 };
      history.saves.push(save);
      try {
        save.revision = await instance.store.save(threadId, { entries: [...baseEntries, save.entry] }, save.expected);
        save.outcome = 'acknowledged';
      } catch (error) {
        save.outcome = error instanceof StoreConflictError ? 'conflict' : error instanceof StoreCorruptError ? 'corrupt' : 'unavailable';
      }
      save.finishedAt = ++sequence;
    }
  }

  const before = world.emulator.counters.total ?? 0;
  let running = 0;
  for (const instance of instances) {
    for (let index = 0; index < config.writersPerInstance; index += 1) {
      running += 1;
      void writer(instance, `${instance.name.slice(-2)}w${index}`).finally(() => (running -= 1));
    }
  }

  /** Instance name → the step at which it thaws. */
  const frozen = new Map<string, number>();
  const parked: ParkedAnswer[] = [];
  const ghosts: GhostRequest[] = [];
  let steps = 0;
  const serve = async (call: WaitingCall) => {
    world.nextSkewMs = pick(skews);
    const roll = config.faults ? random() : 1;
    if (roll < 0.03) parked.push(await world.apply(call));
    else if (roll < 0.06) await world.lose(call);
    else if (roll < 0.08) {
      world.emulator.addFault({ operation: call.operation, keyPrefix: call.name, drop: true });
      await world.step(call);
    } else if (roll < 0.1 && call.operation === 'PutObject') ghosts.push(await world.abandon(call));
    else await world.step(call);
  };

  for (;;) {
    await world.quiesce();
    steps += 1;
    world.advance(Math.floor(random() * 800));
    for (const [name, thawAt] of frozen) if (thawAt <= steps) frozen.delete(name);
    const waiting = world.waiting().filter((call) => instances.some((instance) => instance.name === call.instance));
    if (running === 0 && waiting.length === 0 && parked.length === 0) {
      // Late creates land (or never do) only once everyone is done: the last word on the thread.
      for (const ghost of ghosts.splice(0)) if (random() < 0.5) await world.land(ghost);
      await Promise.all(instances.map((instance) => instance.run(instance.store.idle())));
      break;
    }
    if (config.faults) {
      const roll = random();
      if (roll < 0.03) {
        // A stall: one instance — or two at once — freezes for many steps (past KEEP foreign commits),
        // while OSS's clock moves past the hold, or to just around the edge of the proof's window,
        // where a margin too small for the skews would let a stalled create be proven by time.
        const thawAt = steps + 10 + Math.floor(random() * 150);
        frozen.set(pick(instances).name, thawAt);
        if (random() < 0.3) frozen.set(pick(instances).name, thawAt + Math.floor(random() * 5));
        const jump = random();
        if (jump < 0.3) world.advance(DEFAULT_HOLD.holdMs + Math.floor(random() * 3 * MINUTE));
        else if (jump < 0.7) world.advance(DEFAULT_HOLD.holdMs - Math.floor(random() * 3 * DEFAULT_HOLD.marginMs));
        continue;
      }
      if (roll < 0.035) {
        // A clock jump, and an OSS server whose clock is re-set (still within the bound).
        world.advance(Math.floor(random() * 12 * MINUTE));
        skews[Math.floor(random() * SERVERS)] = drawSkew();
        continue;
      }
      if (roll < 0.05 && parked.length > 0) {
        const index = Math.floor(random() * parked.length);
        const [answer] = parked.splice(index, 1);
        if (answer && !frozen.has(answer.call.instance)) await world.deliver(answer);
        else if (answer) parked.push(answer);
        continue;
      }
      if (roll < 0.06 && ghosts.length > 0) {
        const [ghost] = ghosts.splice(Math.floor(random() * ghosts.length), 1);
        if (ghost) await world.land(ghost);
        continue;
      }
    }
    const movable = waiting.filter((call) => !frozen.has(call.instance));
    if (movable.length === 0) {
      // Nothing can move but frozen instances and parked answers: the earliest thaws.
      if (parked.length > 0 && random() < 0.5) await world.deliver(parked.shift() as ParkedAnswer);
      else if (frozen.size > 0) frozen.delete([...frozen.entries()].sort((a, b) => a[1] - b[1])[0]?.[0] as string);
      else if (parked.length > 0) await world.deliver(parked.shift() as ParkedAnswer);
      continue;
    }
    const call = pick(movable);
    // A freeze between a listing and its GET: the instance stops just before reading what it listed.
    if (config.faults && call.operation === 'GetObject' && random() < 0.05) {
      frozen.set(call.instance, steps + 10 + Math.floor(random() * 150));
      continue;
    }
    await serve(call);
  }

  const requests = (world.emulator.counters.total ?? 0) - before;
  const observer = world.instance(`${threadId}-observer`, storeOptions('no-hold', 8));
  const final = await observer.run(observer.store.load(threadId));
  return { history, finalEntries: entriesOf(final?.document), requests, steps };
}

function entriesOf(document: unknown): string[] {
  const entries = (document as { entries?: unknown } | undefined)?.entries;
  return Array.isArray(entries) ? entries.map(String) : [];
}
