import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/security/**/*.test.ts', 'test/reliability/**/*.test.ts', 'test/team/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every gateway /v1 answer a test sees is checked against the OpenAPI document.
    setupFiles: ['test/setup/conformance-setup.ts'],
    // One PostgreSQL server for the run (test/helpers/postgres.ts); test files get databases on it
    // with sharedPostgres().
    globalSetup: ['test/setup/postgres-global.ts'],
  },
});
