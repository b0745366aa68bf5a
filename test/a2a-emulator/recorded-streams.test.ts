/**
 * The emulator against the real kernel's recordings (docs/architecture.md §9.7): every flow of
 * scripts/real-kernel/flows.ts is played against the emulator exactly as it was recorded from the
 * kernel (`npm run record:kernel`), and each stream must have the recording's shape — states,
 * metadata keys and value types, how message ids are reused, the order of signals
 * (test/support/recorded-comparison.ts says what is compared and why).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { FLOWS } from '../../scripts/real-kernel/flows.js';
import type { RawStream } from '../../scripts/real-kernel/raw-a2a.js';
import { shapeFlow } from '../support/recorded-comparison.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'kernel-streams');

interface Recording {
  flow: string;
  kernel: string;
  streams: RawStream[];
}

let emulator: A2AEmulator;

beforeAll(async () => {
  emulator = await startA2AEmulator({ restoreRoute: false });
});
afterAll(async () => emulator.close());

describe('the emulator plays what the real kernel was recorded doing', () => {
  it.each(FLOWS.map((flow) => [flow.name, flow] as const))('%s', async (name, flow) => {
    const recording = JSON.parse(await readFile(join(FIXTURES, `${name}.json`), 'utf8')) as Recording;
    const played = await flow.play({ url: emulator.url, text: flow.emulatorText, cwd: '/workspace/recorded' });
    const kernel = shapeFlow(recording.streams, false);
    const emulated = shapeFlow(played, true);
    expect(Object.keys(emulated.streams)).toEqual(Object.keys(kernel.streams));
    for (const [label, shape] of Object.entries(kernel.streams)) expect(emulated.streams[label], `${name} / ${label}`).toEqual(shape);
  });
});
