/**
 * A separate OS process that loads one thread through the file driver and prints what came back:
 * `{"revision": N}`, `{"absent": true}` or `{"error": "<StoreError kind>"}`. A test that must not
 * hang its own process when the driver would block runs the load here, under a deadline.
 * Usage: tsx load-thread.ts <stateDir> <threadId>
 */
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { StoreError } from '../../lib/core/ports.js';

const [stateDir, threadId] = process.argv.slice(2);
const store = new FileThreadStore(stateDir as string);
try {
  const loaded = await store.load(threadId as string);
  process.stdout.write(JSON.stringify(loaded ? { revision: loaded.revision } : { absent: true }));
} catch (error) {
  process.stdout.write(JSON.stringify({ error: error instanceof StoreError ? error.kind : String(error) }));
}
