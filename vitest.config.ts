import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/no-console.ts'],
    // Bundles the fixtures tests spawn as child processes, so a child starts without tsx.
    globalSetup: ['test/setup/bundle-workers.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
