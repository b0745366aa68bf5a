/**
 * A separate OS process that increments a counter document through the file driver's
 * compare-and-swap, retrying on conflict. Several of these race on one thread; a true CAS loses
 * no increment. Usage: tsx cas-racer.ts <stateDir> <threadId> <increments> <startAtEpochMs>
 */
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { StoreConflictError } from '../../lib/core/ports.js';

const [stateDir, threadId, increments, startAt] = process.argv.slice(2);
// Start together so the racers really collide.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const store = new FileThreadStore(stateDir as string, { lockWaitMs: 30_000 });
let conflicts = 0;
for (let i = 0; i < Number(increments); i += 1) {
  for (;;) {
    const loaded = await store.load(threadId as string);
    const count = (loaded?.document as { count?: number } | undefined)?.count ?? 0;
    try {
      await store.save(threadId as string, { count: count + 1 }, loaded?.revision ?? 0);
      break;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      conflicts += 1;
    }
  }
}
process.stdout.write(JSON.stringify({ conflicts }));
