/**
 * `npm run fuzz`: a longer campaign of the fuzz suite (test/fuzz; docs/architecture.md §9) with a
 * fresh seed, printed first and last so a failure can be replayed:
 *
 *   npm run fuzz                                  # fresh seed, 500 runs per property
 *   FUZZ_SEED=123 FUZZ_RUNS=2000 npm run fuzz     # replay or extend a campaign
 *   npm run fuzz -- test/fuzz/run-input.test.ts   # one file
 *
 * CI runs the same suite in `npm test` with a fixed seed and a few runs per property.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const seed = process.env['FUZZ_SEED'] || String(randomInt(1, 2 ** 31 - 1));
const runs = process.env['FUZZ_RUNS'] || '500';
const files = process.argv.slice(2);
const replay = `FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz${files.length > 0 ? ` -- ${files.join(' ')}` : ''}`;

console.log(`fuzz campaign: seed ${seed}, ${runs} runs per property (replay: ${replay})`);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const child = spawn(process.execPath, [vitest, 'run', ...(files.length > 0 ? files : ['test/fuzz'])], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs },
});
child.on('exit', (code, signal) => {
  console.log(`fuzz campaign ${code === 0 ? 'passed' : 'FAILED'}: seed ${seed}, ${runs} runs per property (replay: ${replay})`);
  process.exit(code ?? (signal ? 1 : 0));
});
