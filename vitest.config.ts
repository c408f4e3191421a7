import { defineConfig } from 'vitest/config';

/**
 * The core suites that do not depend on the dialect: they run a second time on PostgreSQL (team
 * mode's store), each test gateway on a fresh database (test/helpers/gateway.ts). Suites that
 * read SQLite itself (the file, its pragmas, image holds kept in memory) stay SQLite-only.
 */
const BOTH_DIALECTS = [
  'test/integration/auth-billing.test.ts',
  'test/integration/images-generations.test.ts',
  'test/integration/images-edits.test.ts',
  'test/integration/videos-billing.test.ts',
  'test/integration/videos-validation.test.ts',
  'test/integration/videos-sdk.test.ts',
  'test/integration/videos-progress.test.ts',
  'test/integration/routes-failover.test.ts',
  'test/integration/providers-video-lifecycle.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every gateway /v1 answer a test sees is checked against the OpenAPI document.
    setupFiles: ['test/setup/conformance-setup.ts'],
    // One PostgreSQL server per project (test/helpers/postgres.ts); test files get databases on
    // it with sharedPostgres().
    globalSetup: ['test/setup/postgres-global.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/security/**/*.test.ts', 'test/reliability/**/*.test.ts', 'test/team/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: BOTH_DIALECTS,
          env: { MGW_TEST_DIALECT: 'postgres', MGW_SECRET_KEY: 'postgres-project-secret' },
        },
      },
    ],
  },
});
