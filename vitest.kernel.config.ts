import { defineConfig } from 'vitest/config';

/**
 * `npm run test:kernel`: the product in front of the real iac-code kernel (test/kernel,
 * docs/architecture.md §9.7) — not part of `npm test`. Each file runs its own kernel on its own
 * ports, so files run side by side; a provider outage alone waits out about a minute of retries.
 */
export default defineConfig({
  test: {
    include: ['test/kernel/**/*.test.ts'],
    globalSetup: ['test/kernel/support/global-setup.ts'],
    testTimeout: 150_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 4,
    reporters: ['default'],
  },
});
