import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real kernel's suite runs on its own (`npm run test:kernel`, vitest.kernel.config.ts).
    exclude: ['test/kernel/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
