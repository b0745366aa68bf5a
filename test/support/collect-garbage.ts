/**
 * Full garbage collections from inside a test, for tests that check what a live stream lets go of
 * or still follows once collected (docs/architecture.md §9.6). `--expose-gc` is set at run time, so
 * the test runner needs no flag of its own.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Several full collections, with turns of the event loop between them for finalizers to run. */
export async function collectGarbage(): Promise<void> {
  for (let round = 0; round < 6; round += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
