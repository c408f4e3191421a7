// Vitest globalSetup (vitest.config.ts): one PostgreSQL server for the whole run
// (test/helpers/postgres.ts). Test files reach it with sharedPostgres(), which takes its admin URL
// from inject('pgAdminUrl') and makes a fresh database per call; the server and its data
// directory go away when the run ends.
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../helpers/postgres.js';

export default async function setup({ provide }: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  provide('pgAdminUrl', server.adminUrl);
  return () => server.destroy();
}
