/**
 * The kernel suite's global setup (docs/architecture.md §9.7): sets the real kernel up once
 * (../shared/real-kernel/setup.sh) and tells every test file whether it is there. When it cannot
 * be set up, the reason is printed and every test of the suite is reported skipped — never passed.
 */
import type { TestProject } from 'vitest/node';
import { type Availability, setUpRealKernel } from '../../../scripts/real-kernel/real-kernel-place.js';

declare module 'vitest' {
  export interface ProvidedContext {
    realKernel: Availability;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const availability = await setUpRealKernel();
  if (!availability.available) process.stdout.write(`real kernel unavailable: ${availability.reason}\n`);
  project.provide('realKernel', availability);
}
